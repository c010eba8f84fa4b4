package dev.cairn.store.mysql;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * {@code deletions.target_key}: SHA-256 of the target's UTF-8 bytes. The target (an id, or an address
 * with an unbounded d-tag) cannot itself be a primary key column on MySQL, so the key is its hash
 * (db/mysql/0001_tenant.sql); the same as {@code UNHEX(SHA2(target, 256))} in SQL.
 */
final class TombstoneKey {
  private TombstoneKey() {}

  static byte[] of(String target) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(target.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JVM", e);
    }
  }
}
