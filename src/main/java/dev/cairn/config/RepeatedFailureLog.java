package dev.cairn.config;

import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The log of one failure that can repeat many times a second, such as every group commit of a tenant
 * whose disk is full: the first failure is logged with its cause, repeats are counted and summed up at
 * most once per {@code intervalMs}, and the first success after them says it is over and how long it
 * lasted. A relay whose disk filled must not fill its log as well (each failed commit was a line:
 * 8,000 in a few seconds), nor leave its operator guessing whether writes work again; nor one whose
 * broker stalled (each outbox batch that could not be published was a line: 2,600 in an 8-s stall).
 * Failures are logged at the level given, the recovery at WARNING. Thread-safe.
 */
public final class RepeatedFailureLog {
  private final Logger log;
  private final Level level;
  private final String what;
  private final long intervalMs;
  /** Failures since the first (0: none), the first one's time, repeats since the last line, its time. */
  private long failures;
  private long firstMs;
  private long unlogged;
  private long lastLineMs;

  public RepeatedFailureLog(Logger log, Level level, String what, long intervalMs) {
    this.log = log;
    this.level = level;
    this.what = what;
    this.intervalMs = intervalMs;
  }

  /** One failure; {@code cause} may be null. */
  public synchronized void failed(String detail, Throwable cause, long nowMs) {
    failures++;
    if (failures == 1) {
      firstMs = nowMs;
      lastLineMs = nowMs;
      log.log(level, what + " failed: " + detail, cause);
      return;
    }
    unlogged++;
    if (nowMs - lastLineMs >= intervalMs) {
      log.log(level, what + " still failing: " + unlogged + " more failure(s) in the last "
          + (nowMs - lastLineMs) / 1000 + " s, " + failures + " since " + Instant.ofEpochMilli(firstMs)
          + "; the latest: " + detail, cause);
      unlogged = 0;
      lastLineMs = nowMs;
    }
  }

  /** The work succeeded: ends an episode of failures, if one was going on. */
  public synchronized void succeeded(long nowMs) {
    if (failures == 0) {
      return;
    }
    log.warning(what + " works again after " + failures + " failure(s) over " + (nowMs - firstMs) + " ms");
    failures = 0;
    unlogged = 0;
  }
}
