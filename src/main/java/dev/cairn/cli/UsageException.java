package dev.cairn.cli;

/** A command line that cannot be run as written: printed with a pointer to {@code --help}, exit 2. */
public final class UsageException extends Exception {
  public UsageException(String message) {
    super(message);
  }
}
