package dev.cairn.policy;

import java.util.HashMap;
import java.util.Map;

/**
 * History queries (REQ and COUNT) admitted and not yet answered, per connection, so one client
 * cannot hold many of the database-engine's readers at once. Counted whether or not a cap is set,
 * so a cap switched on by a reload is exact at once. Entries exist only while queries run.
 */
final class InFlightQueries {
  private final Map<Long, Integer> running = new HashMap<>();

  /** Starts a query for {@code connId} unless {@code max} (> 0) are already running. */
  boolean tryStart(long connId, int max) {
    int n = running.getOrDefault(connId, 0);
    if (max > 0 && n >= max) {
      return false;
    }
    running.put(connId, n + 1);
    return true;
  }

  void done(long connId) {
    running.computeIfPresent(connId, (k, n) -> n <= 1 ? null : n - 1);
  }

  /** The database-engine was restarted: the queries it held will never be answered. */
  void clear() {
    running.clear();
  }

  int running(long connId) {
    return running.getOrDefault(connId, 0);
  }

  int connections() {
    return running.size();
  }
}
