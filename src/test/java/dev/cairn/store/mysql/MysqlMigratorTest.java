package dev.cairn.store.mysql;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.store.Migration;
import dev.cairn.store.StoreException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The MySQL schema and its migrator against a real server: MariaDB at 127.0.0.1:3306 as root with no
 * password (CI starts it), or {@code CAIRN_TEST_MYSQL_URL} (its DB part is only used to log in). Each
 * test gets two fresh databases (meta and one dedicated tenant), dropped after, also on failure.
 */
class MysqlMigratorTest extends MysqlTestBase {



  private final List<Pool> pools = new ArrayList<>();
  private String metaDb;
  private String tenantDb;



  @BeforeEach
  void createDatabases() throws Exception {
    metaDb = mysql.createDatabase("_meta");
    tenantDb = mysql.createDatabase("_t");
  }

  @AfterEach
  void dropDatabases() throws Exception {
    for (Pool p : pools) {
      await(p.close());
    }
    mysql.dropDatabase(metaDb);
    mysql.dropDatabase(tenantDb);
  }

  @Test
  void migratesMetaAndTenantSchemas() throws Exception {
    MysqlMigrator meta = new MysqlMigrator("db/mysql-meta");
    MysqlMigrator tenant = new MysqlMigrator("db/mysql");
    assertEquals(versions(meta.migrations()), await(meta.migrate(pool(metaDb))));
    assertEquals(versions(tenant.migrations()), await(tenant.migrate(pool(tenantDb))));

    assertEquals(Set.of("_migrations", "tenants", "admin_entries", "admin_info", "tenant_notify_outbox",
        "tenant_outbox_cursor", "pods", "shared_maintenance_state"), tables(metaDb));
    assertEquals(Set.of("_migrations", "tenant_counters", "events", "tag_index", "deletions", "event_queue",
        "processed_events", "feed_events", "removed_events", "search_docs"), tables(tenantDb));

    // Every table InnoDB, utf8mb4 binary collation.
    for (Row r : await(admin.preparedQuery("SELECT table_name, engine, table_collation FROM information_schema.tables"
        + " WHERE table_schema IN (?, ?) AND table_name <> '_migrations'").execute(Tuple.of(metaDb, tenantDb)))) {
      assertEquals("InnoDB", r.getString(1), r.getString(0));
      assertEquals("utf8mb4_bin", r.getString(2), r.getString(0));
    }

    Map<String, String> events = columns(tenantDb, "events");
    assertEquals("varchar(63)", events.get("tenant_id"));
    assertEquals("bigint", events.get("seq"));
    assertEquals("binary(32)", events.get("id"));
    assertEquals("binary(32)", events.get("pubkey"));
    assertEquals("bigint", events.get("created_at"));
    assertEquals("mediumblob", events.get("json"));
    assertEquals("binary(32)", columns(tenantDb, "feed_events").get("event_id"));
    assertEquals(Set.of("tenant_id", "event_seq", "feed_seq", "queue_id"), columns(tenantDb, "tenant_counters").keySet());
    assertEquals("bigint", columns(tenantDb, "event_queue").get("stored_seq"));
    Map<String, String> tenants = columns(metaDb, "tenants");
    assertTrue(tenants.keySet().containsAll(Set.of("id", "feed_epoch", "placement", "db_name")), tenants.toString());

    assertEquals(List.of("tenant_id", "seq"), index(tenantDb, "events", "PRIMARY"));
    assertEquals(List.of("tenant_id", "id"), index(tenantDb, "events", "events_id"));
    assertEquals(List.of("tenant_id", "created_at"), index(tenantDb, "events", "events_created"));
    assertEquals(List.of("tenant_id", "pubkey", "created_at"), index(tenantDb, "events", "events_pubkey"));
    assertEquals(List.of("tenant_id", "kind", "created_at"), index(tenantDb, "events", "events_kind"));
    assertEquals(List.of("tenant_id", "pubkey", "kind", "d_tag"), index(tenantDb, "events", "events_address"));
    assertEquals(List.of("tenant_id", "expiration"), index(tenantDb, "events", "events_expiration"));
    assertEquals(List.of("tenant_id", "k", "created_at", "seq"), index(tenantDb, "tag_index", "PRIMARY"));
    assertEquals(List.of("tenant_id", "status", "available_at"), index(tenantDb, "event_queue", "event_queue_pending"));
    assertEquals(List.of("tenant_id", "status", "claimed_at"), index(tenantDb, "event_queue", "event_queue_claimed"));
    assertEquals(List.of("tenant_id", "event_id"), index(tenantDb, "event_queue", "event_queue_event_id"));
    assertEquals(List.of("ts"), index(tenantDb, "feed_events", "feed_events_ts"));
    assertEquals(List.of("removed_at"), index(tenantDb, "removed_events", "removed_events_at"));
    assertEquals(List.of("tenant_id", "target_key", "pubkey"), index(tenantDb, "deletions", "PRIMARY"));
    assertEquals(List.of("created_at"), index(metaDb, "tenant_notify_outbox", "tenant_notify_outbox_created"));
    assertEquals(List.of("heartbeat_at"), index(metaDb, "pods", "pods_heartbeat"));
    assertEquals(List.of("pod_id"), index(metaDb, "tenant_outbox_cursor", "PRIMARY"));
    assertEquals(List.of("body"), index(tenantDb, "search_docs", "search_docs_body")); // FULLTEXT
    assertEquals(List.of("name"), index(metaDb, "shared_maintenance_state", "PRIMARY"));
  }

  @Test
  void secondRunIsANoOp() throws Exception {
    MysqlMigrator tenant = new MysqlMigrator("db/mysql");
    Pool p = pool(tenantDb);
    assertEquals(versions(tenant.migrations()), await(tenant.migrate(p)));
    assertEquals(List.of(), await(tenant.migrate(p)));
    assertEquals(List.of(), await(new MysqlMigrator("db/mysql").migrate(p)));
    assertEquals(tenant.migrations().size(), migrationRows(tenantDb));
  }

  @Test
  void changedMigrationIsRefused() throws Exception {
    MysqlMigrator meta = new MysqlMigrator("db/mysql-meta");
    Pool p = pool(metaDb);
    await(meta.migrate(p));
    await(p.query("UPDATE _migrations SET checksum = REPEAT('0', 64) WHERE version = 1").execute());
    ExecutionException e = assertThrows(ExecutionException.class, () -> await(meta.migrate(p)));
    StoreException se = assertInstanceOf(StoreException.class, e.getCause());
    assertTrue(se.getMessage().contains("0001_meta of db/mysql-meta was changed after it was applied"),
        se.getMessage());
    assertTrue(se.getMessage().contains(metaDb), se.getMessage());
    // The lock was released on the failure: a run with no wait gets it.
    await(p.query("UPDATE _migrations SET checksum = '" + meta.migrations().get(0).checksum()
        + "' WHERE version = 1").execute());
    assertEquals(List.of(), await(new MysqlMigrator("db/mysql-meta", 0).migrate(p)));
  }

  @Test
  void concurrentRunsApplyEachMigrationOnce() throws Exception {
    MysqlMigrator tenant = new MysqlMigrator("db/mysql");
    // Two pools: two pods, two sessions racing for the lock.
    Future<List<Integer>> a = tenant.migrate(pool(tenantDb));
    Future<List<Integer>> b = new MysqlMigrator("db/mysql").migrate(pool(tenantDb));
    await(Future.all(a, b));
    List<Integer> both = new ArrayList<>(a.result());
    both.addAll(b.result());
    assertEquals(versions(tenant.migrations()), both.stream().sorted().toList());
    assertEquals(tenant.migrations().size(), migrationRows(tenantDb));
  }

  @Test
  void lockHeldElsewhereTimesOutWithAClearError() throws Exception {
    Pool p = pool(tenantDb);
    SqlConnection holder = await(p.getConnection());
    try {
      await(holder.preparedQuery("SELECT GET_LOCK(?, 0)").execute(Tuple.of(MysqlMigrator.lockName(tenantDb))));
      ExecutionException e = assertThrows(ExecutionException.class,
          () -> await(new MysqlMigrator("db/mysql", 0).migrate(p)));
      assertTrue(e.getCause().getMessage().contains("held the migration lock"), e.getCause().getMessage());
    } finally {
      await(holder.close());
    }
    assertEquals(1, new TreeSet<>(await(new MysqlMigrator("db/mysql", 5).migrate(p))).first());
  }

  @Test
  void eventRowRoundTripsWithBinaryIds() throws Exception {
    await(new MysqlMigrator("db/mysql").migrate(pool(tenantDb)));
    Pool p = pool(tenantDb);
    byte[] id = new byte[32];
    byte[] pubkey = new byte[32];
    for (int i = 0; i < 32; i++) {
      id[i] = (byte) (255 - i * 7); // high bytes and a 0x00-free tail: no charset may touch them
      pubkey[i] = (byte) i;
    }
    byte[] json = "{\"content\":\"héllo 🌰\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    // seq from the tenant's counter row, as the writer will take it.
    await(p.query("INSERT INTO tenant_counters(tenant_id) VALUES ('t1')").execute());
    await(p.query("UPDATE tenant_counters SET event_seq = event_seq + 1 WHERE tenant_id = 't1'").execute());
    long seq = await(p.query("SELECT event_seq FROM tenant_counters WHERE tenant_id = 't1'").execute())
        .iterator().next().getLong(0);
    await(p.preparedQuery("INSERT INTO events(tenant_id, seq, id, pubkey, created_at, kind, d_tag, expiration, json)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)").execute(Tuple.of("t1", seq, Buffer.buffer(id),
        Buffer.buffer(pubkey), 1_700_000_000L, 30023, Buffer.buffer("slug"), null, Buffer.buffer(json))));
    Row r = await(p.preparedQuery("SELECT seq, pubkey, kind, d_tag, expiration, json FROM events"
        + " WHERE tenant_id = ? AND id = ?").execute(Tuple.of("t1", Buffer.buffer(id)))).iterator().next();
    assertEquals(1L, r.getLong("seq"));
    assertArrayEquals(pubkey, r.getBuffer("pubkey").getBytes());
    assertEquals(30023, r.getInteger("kind"));
    assertEquals("slug", r.getBuffer("d_tag").toString());
    assertEquals(null, r.getValue("expiration"));
    assertArrayEquals(json, r.getBuffer("json").getBytes());
    // The same id under another tenant is another row (shared pool); twice under one tenant is refused.
    await(p.preparedQuery("INSERT INTO events(tenant_id, seq, id, pubkey, created_at, kind, json)"
        + " VALUES ('t2', 1, ?, ?, 1, 1, '{}')").execute(Tuple.of(Buffer.buffer(id), Buffer.buffer(pubkey))));
    ExecutionException dup = assertThrows(ExecutionException.class, () -> await(p.preparedQuery(
        "INSERT INTO events(tenant_id, seq, id, pubkey, created_at, kind, json) VALUES ('t1', 2, ?, ?, 1, 1, '{}')")
        .execute(Tuple.of(Buffer.buffer(id), Buffer.buffer(pubkey)))));
    assertTrue(dup.getCause().getMessage().contains("Duplicate"), dup.getCause().getMessage());
  }

  @Test
  void placementIsChecked() throws Exception {
    Pool p = pool(metaDb);
    await(new MysqlMigrator("db/mysql-meta").migrate(p));
    await(p.query("INSERT INTO tenants(id, created_at_s, feed_epoch, placement, db_name)"
        + " VALUES ('a', 1, 'abcdefgh', 'shared', 'pool1')").execute());
    assertThrows(ExecutionException.class, () -> await(p.query("INSERT INTO tenants(id, created_at_s,"
        + " feed_epoch, placement, db_name) VALUES ('b', 1, 'abcdefgh', 'elsewhere', 'x')").execute()));
  }

  private Pool pool(String db) {
    Pool p = mysql.pool(db, 2);
    pools.add(p);
    return p;
  }

  private Set<String> tables(String db) throws Exception {
    Set<String> out = new TreeSet<>();
    for (Row r : await(admin.preparedQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = ?")
        .execute(Tuple.of(db)))) {
      out.add(r.getString(0));
    }
    return out;
  }

  private Map<String, String> columns(String db, String table) throws Exception {
    Map<String, String> out = new HashMap<>();
    for (Row r : await(admin.preparedQuery("SELECT column_name, column_type FROM information_schema.columns"
        + " WHERE table_schema = ? AND table_name = ?").execute(Tuple.of(db, table)))) {
      // MariaDB and MySQL 5.7 print integer display widths (bigint(20)), MySQL 8 does not.
      out.put(r.getString(0), r.getString(1).toLowerCase(java.util.Locale.ROOT)
          .replaceAll("^(tinyint|smallint|mediumint|int|bigint)\\(\\d+\\)", "$1"));
    }
    return out;
  }

  private List<String> index(String db, String table, String name) throws Exception {
    List<String> out = new ArrayList<>();
    for (Row r : await(admin.preparedQuery("SELECT column_name FROM information_schema.statistics"
        + " WHERE table_schema = ? AND table_name = ? AND index_name = ? ORDER BY seq_in_index")
        .execute(Tuple.of(db, table, name)))) {
      out.add(r.getString(0));
    }
    return out;
  }

  private long migrationRows(String db) throws Exception {
    return await(admin.query("SELECT COUNT(*) FROM " + db + "._migrations").execute()).iterator().next().getLong(0);
  }

  private static List<Integer> versions(List<Migration> ms) {
    return ms.stream().map(Migration::version).toList();
  }

  private static <T> T await(Future<T> f) throws Exception {
    return TestMysqlServer.await(f);
  }
}
