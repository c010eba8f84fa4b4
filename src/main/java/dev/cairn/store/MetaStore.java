package dev.cairn.store;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The meta DB ({@code data/meta.db}): tenant registry and the NIP-86 admin changes. Plain JDBC, blocking, thread-safe (one
 * connection, synchronized). Migrations from {@code db/sqlite-meta/}.
 */
public final class MetaStore implements AutoCloseable {

  private static final Migrator MIGRATOR = new Migrator("db/sqlite-meta");
  private static final String EPOCH_ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path file;
  private final Connection conn;
  private boolean closed;

  private MetaStore(Path file, Connection conn) {
    this.file = file;
    this.conn = conn;
  }

  /** Opens (creating file and directory if needed) and migrates the meta DB. */
  public static MetaStore open(Path dbFile) throws StoreException {
    Path abs = SqliteFiles.withDirectory(dbFile);
    Connection c;
    try {
      c = SqliteFiles.open(abs, SqliteFiles.Role.STANDALONE);
    } catch (SQLException e) {
      throw new StoreException("cannot open " + abs, e);
    }
    try {
      MIGRATOR.migrate(c);
    } catch (RuntimeException e) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // failing anyway
      }
      throw e;
    }
    return new MetaStore(abs, c);
  }

  /**
   * Registers {@code tenantId} if it is new and returns its feed epoch: 8 random characters of
   * {@code [a-z2-7]}, created once and kept for the life of the tenant.
   */
  public synchronized String ensureTenant(String tenantId) {
    ensureOpen();
    try {
      String epoch = feedEpochOrNull(tenantId);
      if (epoch != null) {
        return epoch;
      }
      try (PreparedStatement ps = conn.prepareStatement(
          "INSERT INTO tenants(id, created_at, feed_epoch) VALUES (?, ?, ?) ON CONFLICT(id) DO NOTHING")) {
        ps.setString(1, tenantId);
        ps.setLong(2, System.currentTimeMillis() / 1000);
        ps.setString(3, newEpoch());
        ps.executeUpdate();
      }
      // Another process may have won the insert: its epoch is the one.
      epoch = feedEpochOrNull(tenantId);
      if (epoch == null) {
        throw new StoreException("tenant " + tenantId + " vanished after insert");
      }
      return epoch;
    } catch (SQLException e) {
      throw new StoreException("ensureTenant(" + tenantId + ") failed on " + file, e);
    }
  }

  /** The tenant's feed epoch, or null when the tenant is unknown. */
  public synchronized String feedEpoch(String tenantId) {
    ensureOpen();
    try {
      return feedEpochOrNull(tenantId);
    } catch (SQLException e) {
      throw new StoreException("feedEpoch(" + tenantId + ") failed on " + file, e);
    }
  }

  /**
   * Gives a registered tenant a new feed epoch (never the same as the old one) and returns it: every
   * cursor of the old epoch then gets {@code reset(server_restart)}. Only while no relay runs on the
   * store (it keeps its epochs in memory): the {@code new-epoch} command after restoring a backup.
   */
  public synchronized String rotateFeedEpoch(String tenantId) {
    ensureOpen();
    try {
      String old = feedEpochOrNull(tenantId);
      if (old == null) {
        throw new StoreException("tenant " + tenantId + " is not registered in " + file);
      }
      String fresh = newEpoch();
      while (fresh.equals(old)) {
        fresh = newEpoch();
      }
      try (PreparedStatement ps = conn.prepareStatement("UPDATE tenants SET feed_epoch = ? WHERE id = ?")) {
        ps.setString(1, fresh);
        ps.setString(2, tenantId);
        ps.executeUpdate();
      }
      return fresh;
    } catch (SQLException e) {
      throw new StoreException("rotateFeedEpoch(" + tenantId + ") failed on " + file, e);
    }
  }

  /** Registered tenant ids, sorted. */
  public synchronized List<String> tenants() {
    ensureOpen();
    List<String> out = new ArrayList<>();
    try (PreparedStatement ps = conn.prepareStatement("SELECT id FROM tenants ORDER BY id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
      return out;
    } catch (SQLException e) {
      throw new StoreException("listing tenants failed on " + file, e);
    }
  }

  /** Every tenant's NIP-86 list entries and changed NIP-11 fields ({@link AdminRow#INFO}), oldest first. */
  public synchronized List<AdminRow> adminRows() {
    ensureOpen();
    List<AdminRow> out = new ArrayList<>();
    try (PreparedStatement ps = conn.prepareStatement(
            "SELECT tenant, list, value, reason FROM admin_entries ORDER BY added_at, rowid");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new AdminRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
      }
    } catch (SQLException e) {
      throw new StoreException("reading admin_entries failed on " + file, e);
    }
    try (PreparedStatement ps = conn.prepareStatement("SELECT tenant, field, value FROM admin_info ORDER BY tenant, field");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.add(new AdminRow(rs.getString(1), AdminRow.INFO, rs.getString(2), rs.getString(3)));
      }
    } catch (SQLException e) {
      throw new StoreException("reading admin_info failed on " + file, e);
    }
    return out;
  }

  /**
   * Writes one admin change, durably (autocommit): an entry added (its reason replaced when it was
   * there), an entry removed ({@code present} false), or a NIP-11 field set.
   */
  public synchronized void putAdminRow(AdminRow row, boolean present) {
    ensureOpen();
    long now = System.currentTimeMillis() / 1000;
    String sql = row.list().equals(AdminRow.INFO)
        ? "INSERT INTO admin_info(tenant, field, value, changed_at) VALUES (?, ?, ?, ?)"
            + " ON CONFLICT(tenant, field) DO UPDATE SET value = excluded.value, changed_at = excluded.changed_at"
        : present
            ? "INSERT INTO admin_entries(tenant, list, value, reason, added_at) VALUES (?, ?, ?, ?, ?)"
                + " ON CONFLICT(tenant, list, value) DO UPDATE SET reason = excluded.reason"
            : "DELETE FROM admin_entries WHERE tenant = ? AND list = ? AND value = ?";
    try (PreparedStatement ps = conn.prepareStatement(sql)) {
      ps.setString(1, row.tenant());
      if (row.list().equals(AdminRow.INFO)) {
        ps.setString(2, row.value());
        ps.setString(3, row.note());
        ps.setLong(4, now);
      } else {
        ps.setString(2, row.list());
        ps.setString(3, row.value());
        if (present) {
          ps.setString(4, row.note() == null ? "" : row.note());
          ps.setLong(5, now);
        }
      }
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new StoreException("writing " + row + " failed on " + file, e);
    }
  }

  private String feedEpochOrNull(String tenantId) throws SQLException {
    try (PreparedStatement ps = conn.prepareStatement("SELECT feed_epoch FROM tenants WHERE id = ?")) {
      ps.setString(1, tenantId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  static String newEpoch() {
    char[] out = new char[8];
    for (int i = 0; i < out.length; i++) {
      out[i] = EPOCH_ALPHABET.charAt(RANDOM.nextInt(EPOCH_ALPHABET.length()));
    }
    return new String(out);
  }

  private void ensureOpen() {
    if (closed) {
      throw new StoreException("meta store closed: " + file);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      conn.close();
    } catch (SQLException ignored) {
      // closing anyway
    }
  }
}
