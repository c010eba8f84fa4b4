package dev.cairn.store;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One migration file ({@code NNNN_name.sql}) read from the classpath.
 *
 * <p>{@link #checksum()} is what a migrator records with an applied version, so that a file edited
 * after it ran somewhere is refused instead of silently leaving databases with different schemas.
 */
public record Migration(int version, String name, String sql) {

  /** SHA-256 of the file's UTF-8 text, 64 lowercase hex characters. */
  public String checksum() {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(sql.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }

  /** {@code 0001_events} as in the file name, for messages. */
  public String fileName() {
    return String.format("%04d_%s", version, name);
  }
}
