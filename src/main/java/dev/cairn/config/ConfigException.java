package dev.cairn.config;

/** A config file or override that cannot be used; the message names the key. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
