package dev.cairn.store.mysql;

import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.outbox.OutboxStore;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * The MySQL dialect on the test server: a fresh migrated database, written by MysqlEventWriter.persist;
 * each "pod" has its own pool and MysqlOutboxStore, as two processes would.
 */
final class MysqlOutboxFixture implements OutboxFixture {
  private final TestMysqlServer mysql;
  private final String db;
  private final Pool podA;
  private final Pool podB;
  private final MysqlOutboxStore store;
  private final MysqlOutboxStore second;
  private final MysqlEventWriter writer = new MysqlEventWriter(TENANT);

  MysqlOutboxFixture(TestMysqlServer mysql) throws Exception {
    this.mysql = mysql;
    this.db = mysql.createDatabase("_ob");
    this.podA = mysql.pool(db, 4);
    this.podB = mysql.pool(db, 4);
    TestMysqlServer.await(new MysqlMigrator("db/mysql").migrate(podA));
    this.store = TestMysqlServer.await(MysqlOutboxStore.open(podA, TENANT));
    this.second = TestMysqlServer.await(MysqlOutboxStore.open(podB, TENANT));
  }

  /** A write path for another tenant in the same database (scoping checks). */
  MysqlEventWriter writerFor(String tenant) {
    return new MysqlEventWriter(tenant);
  }

  Pool pool() {
    return podA;
  }

  @Override
  public OutboxStore store() {
    return store;
  }

  @Override
  public OutboxStore secondPod() {
    return second;
  }

  @Override
  public void write(List<NostrEvent> events) throws Exception {
    TestMysqlServer.await(writer.persist(podA, events, System.currentTimeMillis() / 1000));
    TestMysqlServer.await(store.refreshBacklog());
  }

  @Override
  public long backlogNow() throws Exception {
    return TestMysqlServer.await(store.refreshBacklog());
  }

  @Override
  public RowState row(long id) throws Exception {
    RowSet<Row> rs = TestMysqlServer.await(podA.preparedQuery("SELECT status, attempts, available_at, claimed_at,"
        + " last_error FROM event_queue WHERE tenant_id = ? AND id = ?").execute(Tuple.of(TENANT, id)));
    if (rs.size() == 0) {
      return null;
    }
    Row r = rs.iterator().next();
    return new RowState(r.getString(0), r.getInteger(1), r.getLong(2), r.getLong(3), r.getString(4));
  }

  @Override
  public String ledger(String eventId, String handler) throws Exception {
    RowSet<Row> rs = TestMysqlServer.await(podA.preparedQuery("SELECT status FROM processed_events WHERE tenant_id = ?"
        + " AND event_id = ? AND handler = ?").execute(Tuple.of(TENANT, eventId, handler)));
    return rs.size() == 0 ? null : rs.iterator().next().getString(0);
  }

  @Override
  public long ledgerRows() throws Exception {
    return TestMysqlServer.await(podA.preparedQuery("SELECT COUNT(*) FROM processed_events WHERE tenant_id = ?")
        .execute(Tuple.of(TENANT))).iterator().next().getLong(0);
  }

  @Override
  public void close() throws Exception {
    TestMysqlServer.await(podA.close());
    TestMysqlServer.await(podB.close());
    mysql.dropDatabase(db);
  }

  @Override
  public String toString() {
    return "mysql";
  }
}
