package dev.cairn.store;

/** A storage failure the caller cannot fix by changing its input (I/O, corruption, closed store...). */
public class StoreException extends RuntimeException {
  public StoreException(String message) {
    super(message);
  }

  public StoreException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * What failed and why in one line: {@code t}'s message, then its innermost cause's when that is
   * another (the wrapper names the commit or the file, the cause says "database or disk is full").
   */
  public static String reason(Throwable t) {
    Throwable root = t;
    for (int i = 0; root.getCause() != null && root.getCause() != root && i < 16; i++) {
      root = root.getCause();
    }
    String top = String.valueOf(t.getMessage());
    return root == t ? top : top + ": " + root.getMessage();
  }
}
