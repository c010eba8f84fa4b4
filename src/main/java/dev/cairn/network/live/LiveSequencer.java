package dev.cairn.network.live;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Puts each tenant's stored events back into seq order before network-manager matches them, so that
 * a subscription gets every event once and in seq order whichever pod wrote it. Pure state, no
 * clock and no threads: the caller passes {@code now} (ms) and runs everything on one thread.
 *
 * <p>Why it is safe to wait for seqs: a tenant's seq is dense in commit order across pods (a counter
 * row locked in the write transaction), so once seq {@code s} is seen every seq below it is committed,
 * and a seq still missing after {@code gapMillis} can be read from the store (a catch-up). A seq the
 * store does not have then was deleted or replaced since: skipping it is correct.
 *
 * <p>Per tenant: {@code next}, the next seq to release (the last released + 1, so network-manager's
 * seq floor is {@code next}); events below it are dropped (duplicates over NATS, events a catch-up
 * already released); events above it wait in a bounded buffer. Ephemeral events (seq 0) are never
 * stored and have no order to restore: they pass straight through.
 *
 * @param <T> what is released (network-manager: its Dispatch message)
 */
public final class LiveSequencer<T> {
  /** A read of the tenant's stored events with {@code fromSeq <= seq < toSeqExclusive} is needed. */
  public record CatchUp(String tenant, long fromSeq, long toSeqExclusive) {}

  /** One event a catch-up read returned. */
  public record Stored<T>(long seq, T item) {}

  private final int maxBuffered;
  private final long gapMillis;
  private final long catchUpTimeoutMillis;
  private final Map<String, Lane<T>> lanes = new HashMap<>();
  private long dropped;

  /** One tenant's order. */
  private static final class Lane<T> {
    long next;
    /** Events ahead of {@code next}, by seq. */
    final TreeMap<Long, T> ahead = new TreeMap<>();
    /** When the current gap at {@code next} opened; -1: no gap. */
    long gapSince = -1;
    /** Seqs below this were dropped (buffer full) or announced by a beacon: a catch-up must cover them (0: none). */
    long overflowTo;
    /** A catch-up is due now, not after the gap bound (overflow, or a read that hit its row cap). */
    boolean urgent;
    /** When the running catch-up was asked for (-1: none), and the end it asked for. */
    long catchUpSentAt = -1;
    long catchUpTo;

    Lane(long next) {
      this.next = next;
    }

    boolean gapOpen() {
      return !ahead.isEmpty() || overflowTo > next;
    }
  }

  /**
   * @param highWater each tenant's store high water at start: its first expected seq is this + 1
   * @param maxBuffered events held ahead of a gap per tenant; more triggers a catch-up at once
   * @param gapMillis how long a gap may stay open before it is read from the store
   * @param catchUpTimeoutMillis a catch-up unanswered this long is asked for again (its answer was lost)
   */
  public LiveSequencer(Map<String, Long> highWater, int maxBuffered, long gapMillis, long catchUpTimeoutMillis) {
    if (maxBuffered < 1 || gapMillis < 0 || catchUpTimeoutMillis < 1) {
      throw new IllegalArgumentException("maxBuffered >= 1, gapMillis >= 0, catchUpTimeoutMillis >= 1");
    }
    this.maxBuffered = maxBuffered;
    this.gapMillis = gapMillis;
    this.catchUpTimeoutMillis = catchUpTimeoutMillis;
    highWater.forEach((t, hw) -> lanes.put(t, new Lane<>(hw + 1)));
  }

  /** Whether {@code tenant} has a lane (it was seeded at start or later, or an event of it was seen). */
  public boolean knows(String tenant) {
    return lanes.containsKey(tenant);
  }

  /**
   * A tenant that appeared after start (a runtime tenant, issue 10): its first expected seq is its store's
   * high water + 1, as for the tenants seeded at start. No-op when it has a lane already.
   */
  public void seed(String tenant, long highWater) {
    lanes.putIfAbsent(tenant, new Lane<>(highWater + 1));
  }

  /** The last seq released for {@code tenant} (every seq up to it was released or skipped); 0 before any. */
  public long highWater(String tenant) {
    Lane<T> lane = lanes.get(tenant);
    return lane == null ? 0 : lane.next - 1;
  }

  /** Events held ahead of a gap for {@code tenant}. */
  public int buffered(String tenant) {
    Lane<T> lane = lanes.get(tenant);
    return lane == null ? 0 : lane.ahead.size();
  }

  /** Events dropped so far as already released or already buffered (duplicates). */
  public long dropped() {
    return dropped;
  }

  /**
   * One event, local or remote, in any order: what can be released now, in seq order (possibly
   * nothing, possibly several buffered ones behind it). {@code seq <= 0}: ephemeral, released at once.
   * A tenant never seen before starts at this event (no store high water was known for it).
   */
  public List<T> accept(String tenant, long seq, T item, long now) {
    if (seq <= 0) {
      return List.of(item);
    }
    Lane<T> lane = lanes.computeIfAbsent(tenant, t -> new Lane<>(seq));
    if (seq < lane.next || lane.ahead.containsKey(seq)) {
      dropped++;
      return List.of();
    }
    if (seq > lane.next) {
      if (lane.ahead.size() >= maxBuffered) {
        // Dropped here, read back from the store by the catch-up this asks for at once.
        lane.overflowTo = Math.max(lane.overflowTo, seq + 1);
        lane.urgent = true;
      } else {
        lane.ahead.put(seq, item);
      }
      if (lane.gapSince < 0) {
        lane.gapSince = now;
      }
      return List.of();
    }
    List<T> out = new ArrayList<>();
    out.add(item);
    lane.next++;
    drain(lane, out, now);
    return out;
  }

  /**
   * Another pod says seqs up to {@code seq} are committed (its beacon, sent for a while after it writes),
   * without an event: if this pod has not released them, the missing tail is a gap like any other and
   * is read from the store after the bound. Without it, a lost last message of a quiet tenant would
   * only be noticed at the tenant's next write.
   */
  public void observe(String tenant, long seq, long now) {
    Lane<T> lane = lanes.get(tenant);
    if (lane == null || seq < lane.next) {
      return;
    }
    lane.overflowTo = Math.max(lane.overflowTo, seq + 1); // must be covered, as seqs dropped on overflow are
    if (lane.gapSince < 0) {
      lane.gapSince = now;
    }
  }

  /**
   * The catch-ups due at {@code now}: a gap older than the bound, a buffer overflow, the rest of a
   * read that hit its row cap, or a catch-up unanswered past its timeout. Each is then in flight.
   */
  public List<CatchUp> due(long now) {
    List<CatchUp> out = new ArrayList<>(0);
    lanes.forEach((tenant, lane) -> {
      if (lane.gapOpen() && deadline(lane) <= now) {
        long to = lane.ahead.isEmpty() ? lane.overflowTo : Math.max(lane.ahead.firstKey(), lane.overflowTo);
        lane.catchUpSentAt = now;
        lane.catchUpTo = to;
        lane.urgent = false;
        out.add(new CatchUp(tenant, lane.next, to));
      }
    });
    return out;
  }

  /** The earliest time {@link #due} can return something; {@link Long#MAX_VALUE}: no gap open. */
  public long nextDeadline() {
    long min = Long.MAX_VALUE;
    for (Lane<T> lane : lanes.values()) {
      if (lane.gapOpen()) {
        min = Math.min(min, deadline(lane));
      }
    }
    return min;
  }

  private long deadline(Lane<T> lane) {
    if (lane.catchUpSentAt >= 0) {
      return lane.catchUpSentAt + catchUpTimeoutMillis;
    }
    return lane.urgent ? Long.MIN_VALUE : lane.gapSince + gapMillis;
  }

  /**
   * A catch-up's answer: {@code events} are the store's events with {@code fromSeq <= seq < toSeqExclusive}
   * in seq order, where a missing seq was deleted or replaced. {@code toSeqExclusive} is what the read
   * covered (less than asked when it hit its row cap; the rest is then due at once). Releases the
   * range and whatever was buffered behind it, in seq order, each seq at most once. Idempotent: a
   * late or repeated answer releases only what was not released yet.
   */
  public List<T> caughtUp(String tenant, long fromSeq, long toSeqExclusive, List<Stored<T>> events, long now) {
    Lane<T> lane = lanes.computeIfAbsent(tenant, t -> new Lane<>(fromSeq));
    boolean partial = lane.catchUpSentAt >= 0 && toSeqExclusive < lane.catchUpTo;
    lane.catchUpSentAt = -1;
    if (fromSeq > lane.next || toSeqExclusive <= lane.next) {
      // Not about the current gap (from a later position cannot happen; an old answer covers nothing new).
      lane.urgent |= partial;
      return List.of();
    }
    for (Stored<T> e : events) {
      if (e.seq() >= lane.next && e.seq() < toSeqExclusive) {
        lane.ahead.putIfAbsent(e.seq(), e.item()); // a copy already buffered is the same event
      }
    }
    List<T> out = new ArrayList<>(events.size());
    // Everything below the covered end now is either here or gone from the store: release in order.
    while (!lane.ahead.isEmpty() && lane.ahead.firstKey() < toSeqExclusive) {
      out.add(lane.ahead.pollFirstEntry().getValue());
    }
    lane.next = toSeqExclusive;
    lane.urgent |= partial; // an overflow while the read ran stays urgent too
    drain(lane, out, now);
    return out;
  }

  /** A catch-up failed (store error, database-engine restarted): asked for again after the gap bound. */
  public void catchUpFailed(String tenant, long now) {
    Lane<T> lane = lanes.get(tenant);
    if (lane != null) {
      lane.catchUpSentAt = -1;
      lane.gapSince = now;
      lane.urgent = false; // even after an overflow: a failing store is not asked again in a tight loop
    }
  }

  /** Releases the buffered run that starts at {@code next}; restarts the gap clock when one remains. */
  private void drain(Lane<T> lane, List<T> out, long now) {
    T t;
    while ((t = lane.ahead.remove(lane.next)) != null) {
      out.add(t);
      lane.next++;
    }
    if (lane.overflowTo <= lane.next) {
      lane.overflowTo = 0;
    }
    if (lane.gapOpen()) {
      lane.gapSince = now; // a new gap: it gets its own bound
    } else {
      lane.gapSince = -1;
      lane.urgent = false;
    }
  }
}
