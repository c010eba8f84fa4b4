package dev.cairn.store.signal;

import java.util.Map;
import java.util.TreeMap;

/**
 * Where a {@link NotifyPoller} stands in {@code tenant_notify_outbox}, allowing for ids that commit out
 * of order. Not thread-safe (the poller's context only).
 *
 * <p>Why: {@code AUTO_INCREMENT} takes its number at insert, so row 41 can become visible after row 42
 * was read; a plain {@code id > cursor} would skip 41 for good. The choice here is to hold the cursor
 * (the {@link #floor}) behind every id this poller first saw less than {@code settle} ago, and to
 * remember the ids above the floor so a re-read wakes each row once:
 *
 * <ul>
 *   <li>If row Y became visible to us at local time t, every lower id was allocated before Y's (ids are
 *       handed out in order on one MySQL/MariaDB server), hence before t, and has committed by
 *       t + commit latency, or never will. So once {@code settle} (> commit latency) has passed since
 *       we first saw Y, nothing below Y can still appear: the floor moves to Y.
 *   <li>Only this pod's own clock is used (first-seen times, {@link System#nanoTime}), not the writers'
 *       {@code created_at}: pods' clocks may disagree.
 *   <li>Re-reading costs only when it can matter: when (floor, high] has ids we have not seen
 *       ({@link #hasGaps}), which with contiguous ids is never. Memory is the rows seen in the last
 *       {@code settle}.
 * </ul>
 *
 * The table stays a lossy hint: a row committing more than {@code settle} late is missed (its tenant's
 * next write, or the optional liveness poll, wakes it). TiDB hands out AUTO_INCREMENT ids in per-server
 * batches, not in order: there the table needs {@code AUTO_ID_CACHE 1} for this reasoning to hold.
 */
final class SettleWindow {
  private long floor;
  private long high;
  /** Ids in (floor, high] read so far, with the local time they were first seen. */
  private final TreeMap<Long, Long> seen = new TreeMap<>();

  SettleWindow(long start) {
    this.floor = start;
    this.high = start;
  }

  /** Every id at or below it was read, or can no longer commit: the cursor to persist. */
  long floor() {
    return floor;
  }

  /** The highest id read. */
  long high() {
    return high;
  }

  /** Ids remembered above the floor. */
  int size() {
    return seen.size();
  }

  /** (floor, high] holds ids not read: a late commit may fill one, so that range is re-read. */
  boolean hasGaps() {
    return high - floor > seen.size();
  }

  /** A row read at {@code nowNanos}; true when it is new to this poller (wake its tenant). */
  boolean offer(long id, long nowNanos) {
    if (id <= floor || seen.containsKey(id)) {
      return false;
    }
    seen.put(id, nowNanos);
    high = Math.max(high, id);
    return true;
  }

  /** Moves the floor to the highest id first seen at least {@code settleNanos} ago. */
  void settle(long nowNanos, long settleNanos) {
    long top = floor;
    for (Map.Entry<Long, Long> e : seen.entrySet()) {
      if (nowNanos - e.getValue() >= settleNanos) {
        top = e.getKey();
      }
    }
    if (top > floor) {
      floor = top;
      seen.headMap(top, true).clear();
    }
  }
}
