package dev.cairn.store.feed;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The per-pod retry buffer for feed changes whose insert failed (seed 003, item 3). Owned by
 * database-engine and used on its event loop only (not thread-safe). Bounded: a global cap and a
 * per-tenant cap; the oldest entry that is not being flushed is dropped first. Per-tenant FIFO
 * queues (enqueue order by construction); at most {@code maxFlushers} tenants flush at once, each one
 * batch at a time from its head. In-flight entries stay counted against the caps and the depth,
 * are skipped by eviction and keep their position on failure. Each entry backs off on its own
 * (1 s doubling to 5 min) and is dropped as {@code expired} past {@code maxAgeMillis}.
 */
public final class RetryBuffer {
  public static final long BACKOFF_INITIAL_MS = 1_000;
  public static final long BACKOFF_MAX_MS = 300_000;
  /** Changes per flush transaction. */
  public static final int FLUSH_BATCH = 500;

  /** Drop reasons, CONTRACT section 6. */
  public static final String TENANT_CAP = "tenant_cap";
  public static final String GLOBAL_CAP = "global_cap";
  public static final String EXPIRED = "expired";
  public static final String STOPPED = "stopped";
  public static final String SHUTDOWN = "shutdown";
  public static final String TENANT_GONE = "tenant_gone";

  /** Told of every dropped entry. */
  @FunctionalInterface
  public interface DropListener {
    void dropped(String tenant, String reason, int count);
  }

  /** One buffered change. */
  public static final class Entry {
    final String tenant;
    final FeedChange change;
    final long enqueuedAt;
    int attempts;
    long nextAt;
    boolean inFlight;

    Entry(String tenant, FeedChange change, long enqueuedAt, long nextAt) {
      this.tenant = tenant;
      this.change = change;
      this.enqueuedAt = enqueuedAt;
      this.nextAt = nextAt;
    }

    public FeedChange change() {
      return change;
    }

    public long enqueuedAt() {
      return enqueuedAt;
    }
  }

  /** A batch taken for flushing: the head of one tenant's queue, in order. */
  public record Flush(String tenant, List<Entry> entries) {
    public List<FeedChange> changes() {
      return entries.stream().map(Entry::change).toList();
    }
  }

  private final int globalCap;
  private final int tenantCap;
  private final int maxFlushers;
  private final long maxAgeMillis;
  private final DropListener drops;
  private final Map<String, ArrayDeque<Entry>> queues = new LinkedHashMap<>();
  private final Map<String, Boolean> flushing = new LinkedHashMap<>();
  private int depth;
  private boolean stopped;

  public RetryBuffer(int globalCap, int tenantCap, int maxFlushers, long maxAgeMillis, DropListener drops) {
    this.globalCap = globalCap;
    this.tenantCap = tenantCap;
    this.maxFlushers = maxFlushers;
    this.maxAgeMillis = maxAgeMillis;
    this.drops = drops;
  }

  /** Entries held, in flight included. */
  public int depth() {
    return depth;
  }

  public int depth(String tenant) {
    ArrayDeque<Entry> q = queues.get(tenant);
    return q == null ? 0 : q.size();
  }

  public boolean stopped() {
    return stopped;
  }

  /** Buffers changes whose insert failed; the first retry is due one backoff later. */
  public void enqueue(String tenant, List<FeedChange> changes, long now) {
    for (FeedChange ch : changes) {
      if (stopped) {
        drops.dropped(tenant, STOPPED, 1);
        continue;
      }
      ArrayDeque<Entry> q = queues.computeIfAbsent(tenant, t -> new ArrayDeque<>());
      if (q.size() >= tenantCap && !evictOldest(q, TENANT_CAP)) {
        drops.dropped(tenant, TENANT_CAP, 1); // everything of the tenant is in flight: the new one goes
        continue;
      }
      if (depth >= globalCap && !evictGlobal()) {
        drops.dropped(tenant, GLOBAL_CAP, 1);
        continue;
      }
      q.addLast(new Entry(tenant, ch, now, now + BACKOFF_INITIAL_MS));
      depth++;
    }
    if (queues.containsKey(tenant) && queues.get(tenant).isEmpty()) {
      queues.remove(tenant);
    }
  }

  /**
   * Takes the due heads of tenants that are not flushing, up to the flusher cap; drops expired
   * entries on the way. The taken entries are in flight until {@link #succeeded} or {@link #failed}.
   */
  public List<Flush> takeDue(long now) {
    List<Flush> out = new ArrayList<>();
    Iterator<Map.Entry<String, ArrayDeque<Entry>>> it = queues.entrySet().iterator();
    while (it.hasNext() && flushing.size() < maxFlushers) {
      Map.Entry<String, ArrayDeque<Entry>> e = it.next();
      String tenant = e.getKey();
      if (flushing.containsKey(tenant)) {
        continue;
      }
      ArrayDeque<Entry> q = e.getValue();
      dropExpired(tenant, q, now);
      if (q.isEmpty()) {
        it.remove();
        continue;
      }
      if (q.peekFirst().nextAt > now) {
        continue;
      }
      List<Entry> batch = new ArrayList<>();
      for (Entry en : q) {
        if (batch.size() >= FLUSH_BATCH) {
          break;
        }
        en.inFlight = true;
        batch.add(en);
      }
      flushing.put(tenant, true);
      out.add(new Flush(tenant, List.copyOf(batch)));
    }
    return out;
  }

  /** The flush landed: its entries leave the buffer. */
  public void succeeded(Flush f) {
    ArrayDeque<Entry> q = queues.get(f.tenant());
    flushing.remove(f.tenant());
    if (q == null) {
      return; // dropped meanwhile (shutdown)
    }
    for (Entry en : f.entries()) {
      if (q.remove(en)) {
        depth--;
      }
    }
    if (q.isEmpty()) {
      queues.remove(f.tenant());
    }
  }

  /** The flush failed: every entry keeps its place and backs off on its own. */
  public void failed(Flush f, long now) {
    flushing.remove(f.tenant());
    for (Entry en : f.entries()) {
      en.inFlight = false;
      en.attempts++;
      en.nextAt = now + backoff(en.attempts);
    }
  }

  /** Backoff after {@code attempts} failed flushes: 1 s doubling (the fresh insert counts), capped at 5 min. */
  static long backoff(int attempts) {
    long b = BACKOFF_INITIAL_MS << Math.min(attempts, 20);
    return Math.min(b, BACKOFF_MAX_MS);
  }

  /** When the next flush or expiry is due, or {@code Long.MAX_VALUE} when nothing waits. */
  public long nextDueAt() {
    long next = Long.MAX_VALUE;
    for (Map.Entry<String, ArrayDeque<Entry>> e : queues.entrySet()) {
      if (flushing.containsKey(e.getKey()) || e.getValue().isEmpty()) {
        continue;
      }
      Entry head = e.getValue().peekFirst();
      next = Math.min(next, Math.min(head.nextAt, head.enqueuedAt + maxAgeMillis));
    }
    return next;
  }

  /** Makes every waiting entry due now (the shutdown flush ignores backoff). */
  public void expedite(long now) {
    for (ArrayDeque<Entry> q : queues.values()) {
      for (Entry en : q) {
        en.nextAt = Math.min(en.nextAt, now);
      }
    }
  }

  /** The tenant no longer exists: its entries go, in flight or not. */
  public void dropTenant(String tenant, String reason) {
    ArrayDeque<Entry> q = queues.remove(tenant);
    flushing.remove(tenant);
    if (q != null && !q.isEmpty()) {
      depth -= q.size();
      drops.dropped(tenant, reason, q.size());
    }
  }

  /** Shutdown began: later enqueues are dropped as {@code stopped}. */
  public void stop() {
    stopped = true;
  }

  /** Drops everything left (the shutdown flush budget is spent). */
  public void dropAll(String reason) {
    for (String tenant : new ArrayList<>(queues.keySet())) {
      dropTenant(tenant, reason);
    }
    flushing.clear();
  }

  private void dropExpired(String tenant, ArrayDeque<Entry> q, long now) {
    Iterator<Entry> it = q.iterator();
    int n = 0;
    while (it.hasNext()) {
      Entry en = it.next();
      if (en.enqueuedAt + maxAgeMillis > now) {
        break; // enqueue order: the rest are younger
      }
      if (!en.inFlight) {
        it.remove();
        depth--;
        n++;
      }
    }
    if (n > 0) {
      drops.dropped(tenant, EXPIRED, n);
    }
  }

  private boolean evictOldest(ArrayDeque<Entry> q, String reason) {
    Iterator<Entry> it = q.iterator();
    while (it.hasNext()) {
      Entry en = it.next();
      if (!en.inFlight) {
        it.remove();
        depth--;
        drops.dropped(en.tenant, reason, 1);
        return true;
      }
    }
    return false;
  }

  private boolean evictGlobal() {
    ArrayDeque<Entry> victimQueue = null;
    Entry victim = null;
    for (ArrayDeque<Entry> q : queues.values()) {
      for (Entry en : q) {
        if (!en.inFlight) {
          if (victim == null || en.enqueuedAt < victim.enqueuedAt) {
            victim = en;
            victimQueue = q;
          }
          break; // the first one not in flight is this queue's oldest
        }
      }
    }
    if (victim == null) {
      return false;
    }
    victimQueue.remove(victim);
    depth--;
    drops.dropped(victim.tenant, GLOBAL_CAP, 1);
    return true;
  }
}
