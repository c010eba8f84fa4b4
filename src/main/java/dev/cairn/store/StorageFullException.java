package dev.cairn.store;

/**
 * The store's disk (or its quota) is full: nothing can be written until space is freed, and the
 * writes that fail meanwhile can be retried as they are. Clients are told so instead of a bare
 * "could not store"; reads go on.
 */
public final class StorageFullException extends StoreException {
  public StorageFullException(String message, Throwable cause) {
    super(message, cause);
  }
}
