package dev.cairn.store;

/** A storage failure the caller cannot fix by changing its input (I/O, corruption, closed store...). */
public class StoreException extends RuntimeException {
  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
