package dev.cairn.store.mysql;

import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.PersistOutcome;
import dev.cairn.store.PersistResult;
import dev.cairn.store.Removal;
import dev.cairn.store.StoredEvent;
import dev.cairn.store.SyncItems;
import dev.cairn.store.TenantStore;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A tenant on MySQL/MariaDB/TiDB as a {@link TenantStore}: reactive, no worker thread per query. Its
 * pool belongs to its database ({@link MysqlDatabases}: shared by the tenants of a shared pool); every
 * statement is scoped by the tenant id. The query budget ({@code limits.query_budget}) is enforced by
 * the server ({@link MysqlQueryBudget}); NIP-50 search reads search_docs, which the writer keeps.
 */
public final class MysqlTenant implements TenantStore {
  private final MysqlPlacement placement;
  private final Pool pool;
  private final MysqlEventWriter writer;
  private final MysqlEventReader reader;
  private final MysqlExpiryPurge purge;
  private final AtomicLong highWater;
  /** Seed 000 on this dialect: claims with SKIP LOCKED, so several pods deliver one tenant safely. */
  private final MysqlOutboxStore outbox;
  /** The pool's server, for the form of the query budget. */
  private final MysqlServerKind server;

  private MysqlTenant(MysqlPlacement placement, Pool pool, long highWater, MysqlOutboxStore outbox,
      MysqlServerKind server) {
    this.placement = placement;
    this.pool = pool;
    this.outbox = outbox;
    this.server = server;
    this.writer = new MysqlEventWriter(placement.tenant());
    this.reader = new MysqlEventReader(placement.tenant());
    this.purge = new MysqlExpiryPurge(placement.tenant());
    this.highWater = new AtomicLong(highWater);
  }

  /**
   * Opens the tenant on {@code pool} (a database on {@code server}): reads its committed high water from
   * its counter row, and its outbox backlog.
   */
  static Future<MysqlTenant> open(MysqlPlacement placement, Pool pool, MysqlServerKind server) {
    return MysqlOutboxStore.open(pool, placement.tenant())
        .compose(outbox -> pool.preparedQuery("SELECT event_seq FROM tenant_counters WHERE tenant_id = ?")
            .execute(Tuple.of(placement.tenant())) // the backlog: counted by MysqlOutboxStore.open
            .map(rows -> new MysqlTenant(placement, pool,
                rows.size() == 0 ? 0 : rows.iterator().next().getLong(0), outbox, server)));
  }

  /** The tenant's outbox (claims, settlements, ledger) on this dialect. */
  public MysqlOutboxStore outbox() {
    return outbox;
  }

  public MysqlPlacement placement() {
    return placement;
  }

  /** The pool of the tenant's database (the outbox and change-feed parts run their SQL on it). */
  public Pool pool() {
    return pool;
  }

  @Override
  public String tenant() {
    return placement.tenant();
  }

  @Override
  public long highWaterSeq() {
    return highWater.get();
  }

  /** Another pod committed up to {@code seq} (seen on the live bus or in a catch-up read). */
  public void sawCommitted(long seq) {
    highWater.accumulateAndGet(seq, Math::max);
  }

  @Override
  public Future<PersistOutcome> persist(List<NostrEvent> batch, long now) {
    return writer.persist(pool, batch, now).onSuccess(out -> {
      int outboxRows = 0;
      for (PersistResult r : out.results()) {
        if (r instanceof PersistResult.Stored s) {
          sawCommitted(s.seq());
          outboxRows += 1 + s.removed().size(); // EventStored + an EventDeleted per removal
        }
      }
      outbox.enqueued(outboxRows);
    });
  }

  @Override
  public Future<List<StoredEvent>> query(List<Filter> filters, long seqBelow, int defaultLimit, int maxLimit,
      long now, long budgetMillis) {
    return reader.query(pool, filters, seqBelow, defaultLimit, maxLimit, now,
        MysqlQueryBudget.start(server, budgetMillis));
  }

  @Override
  public Future<Long> count(List<Filter> filters, long seqBelow, long now, long budgetMillis) {
    return reader.count(pool, filters, seqBelow, now, MysqlQueryBudget.start(server, budgetMillis));
  }

  @Override
  public Future<SyncItems> syncItems(Filter filter, int maxRecords, long now) {
    return reader.syncItems(pool, filter, maxRecords, now);
  }

  @Override
  public Future<List<StoredEvent>> range(long fromSeq, long toSeq, int max) {
    return reader.range(pool, fromSeq, toSeq, max);
  }

  @Override
  public Future<List<Removal>> purgeExpired(long now, int maxRows) {
    return purge.purge(pool, now, maxRows).onSuccess(removed -> outbox.enqueued(removed.size()));
  }

  @Override
  public long outboxBacklog() {
    return outbox.backlog(); // this pod's count: rows it wrote, less rows it settled (refreshed at open)
  }

  @Override
  public void afterWrite() {
    // InnoDB needs no checkpoint from us; the NIP-50 index (search_docs) is written with the events.
  }

  @Override
  public Future<Void> close() {
    return Future.succeededFuture(); // the pool belongs to the database, closed with MysqlStore
  }
}
