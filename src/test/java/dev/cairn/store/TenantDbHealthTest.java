package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What {@code /readyz} reports of the tenant DBs, from their writes' outcomes (the relay-level tests: StorageFullTest, ReadinessTest). */
class TenantDbHealthTest {

  @Test
  void aFailedCommitIsReportedUntilAWriteLands() {
    TenantDbHealth health = new TenantDbHealth();
    assertNull(health.problem());
    health.commitFailed("a", 3, new StoreException("persist failed", new SQLException("disk I/O error")), true);
    assertEquals("tenant a DB failed its last write: persist failed: disk I/O error", health.problem());
    assertEquals(Set.of("a"), health.failing());

    assertFalse(health.sweepLanded("a"), "not a full volume: the landed sweep clears it");
    assertNull(health.problem());
    assertEquals(Set.of(), health.failing());

    health.sweepFailed("b", new StoreException("sweep failed", null));
    assertEquals("tenant b DB failed its last write: sweep failed", health.problem());
    health.commitLanded("b");
    assertNull(health.problem());
  }

  @Test
  void aFullVolumeStaysReportedUntilItHasRoomAgain() {
    TenantDbHealth health = new TenantDbHealth();
    health.commitFailed("a", 1, new StorageFullException("the volume is full", null), true);
    assertTrue(health.sweepLanded("a"), "a sweep that removed nothing commits on a full volume too");
    assertTrue(health.problem().startsWith("tenant a DB failed its last write: the volume is full"));
    health.roomAgain("a", 1L << 30);
    assertNull(health.problem());
    assertFalse(health.sweepLanded("a"));
  }

  @Test
  void aFullVolumeOfAnotherDialectIsAnErrorLikeAnyOther() {
    TenantDbHealth health = new TenantDbHealth();
    health.commitFailed("a", 1, new StorageFullException("the table is full", null), false);
    assertFalse(health.sweepLanded("a"));
    assertNull(health.problem());
  }

  @Test
  void aForgottenTenantIsNotReported() {
    TenantDbHealth health = new TenantDbHealth();
    health.commitFailed("gone", 1, new StorageFullException("full", null), true);
    health.forget("gone");
    assertNull(health.problem());
    assertEquals(Set.of(), health.failing());
    assertFalse(health.sweepLanded("gone"));
  }
}
