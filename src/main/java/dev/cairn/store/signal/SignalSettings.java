package dev.cairn.store.signal;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigException;
import dev.cairn.config.Durations;
import io.vertx.core.json.JsonObject;
import java.time.Duration;

/**
 * The multi-pod signal plane's settings (seed 003 sections 4 and 6); {@link #defaults} are the seed's
 * numbers, tests shorten them. Proposed config keys in parentheses (wired elsewhere).
 *
 * @param podId this process's {@code pod.id} (CONTRACT section 7)
 * @param notifyCoalesce at most one notify row per tenant per this window ({@code feed.notify_coalesce}, 200 ms)
 * @param pollInterval the poller's tick ({@code feed.notify_poll_interval}, 200 ms)
 * @param pollPageSize rows per poll query ({@code feed.notify_poll_page}, 500)
 * @param pollMaxPages full pages read in one tick before yielding to the next tick (20)
 * @param settle how long the poller holds its cursor behind an id it has just seen, so a lower id that
 *     commits late is still read ({@code feed.notify_settle}, 2 s; must exceed the meta DB's commit latency)
 * @param cursorWriteInterval how often the poller upserts its {@code tenant_outbox_cursor} row (1 s)
 * @param heartbeatInterval the {@code pods} row heartbeat ({@code pod.heartbeat_interval}, 5 s)
 * @param deadAfter a pod whose heartbeat is older is dead: its rows are swept ({@code pod.dead_after}, 30 s)
 * @param stallBound cursors older than this do not hold the prune floor ({@code pod.stall_bound}, 10 min)
 * @param notifyRetention notify rows younger than this are kept ({@code feed.notify_retention}, 1 h)
 * @param pruneInterval how often the pruner runs ({@code feed.notify_prune_interval}, 1 min)
 * @param pruneBatch rows per {@code DELETE ... LIMIT} (5000)
 * @param pruneMaxBatches batches per prune run; the rest waits for the next run (20)
 * @param livenessPoll seed 003 item 4 P1: wake locally subscribed tenants not woken for this long;
 *     {@link Duration#ZERO} = off, the default ({@code feed.liveness_poll}, e.g. 60 s)
 */
public record SignalSettings(
    String podId,
    Duration notifyCoalesce,
    Duration pollInterval,
    int pollPageSize,
    int pollMaxPages,
    Duration settle,
    Duration cursorWriteInterval,
    Duration heartbeatInterval,
    Duration deadAfter,
    Duration stallBound,
    Duration notifyRetention,
    Duration pruneInterval,
    int pruneBatch,
    int pruneMaxBatches,
    Duration livenessPoll) {

  public SignalSettings {
    if (podId == null || podId.isBlank() || podId.length() > 191) {
      throw new IllegalArgumentException("pod id must be 1..191 characters (pods.pod_id)");
    }
    for (Duration d : new Duration[] {notifyCoalesce, pollInterval, settle, cursorWriteInterval, heartbeatInterval,
        deadAfter, stallBound, notifyRetention, pruneInterval, livenessPoll}) {
      if (d == null || d.isNegative()) {
        throw new IllegalArgumentException("signal plane durations must be set and >= 0");
      }
    }
    if (pollInterval.isZero() || heartbeatInterval.isZero() || pruneInterval.isZero() || pollPageSize < 1
        || pollMaxPages < 1 || pruneBatch < 1 || pruneMaxBatches < 1) {
      throw new IllegalArgumentException("signal plane intervals, page and batch sizes must be positive");
    }
    if (deadAfter.compareTo(heartbeatInterval.multipliedBy(2)) < 0) {
      // One late heartbeat must not get a live pod swept.
      throw new IllegalArgumentException("pod dead_after must be at least twice the heartbeat interval");
    }
  }

  /** The seed's numbers, with the keys operators tune from {@code config} ({@code pod.*}, {@code feed.*}). */
  public static SignalSettings from(CairnConfig config) {
    JsonObject pod = config.raw().getJsonObject("pod");
    JsonObject feed = config.raw().getJsonObject("feed");
    SignalSettings d = defaults(config.podId());
    try {
      return new SignalSettings(config.podId(), d.notifyCoalesce(), d.pollInterval(), d.pollPageSize(), d.pollMaxPages(),
          d.settle(), d.cursorWriteInterval(),
          Durations.parse("pod.heartbeat_interval", pod.getString("heartbeat_interval")),
          Durations.parse("pod.dead_after", pod.getString("dead_after")),
          Durations.parse("pod.stall_bound", pod.getString("stall_bound")),
          Durations.parse("feed.notify_retention", feed.getString("notify_retention")),
          Durations.parse("feed.notify_prune_interval", feed.getString("notify_prune_interval")),
          d.pruneBatch(), d.pruneMaxBatches(),
          Durations.parse("feed.liveness_poll", feed.getString("liveness_poll")));
    } catch (IllegalArgumentException e) {
      throw new ConfigException("pod / feed signal plane settings: " + e.getMessage());
    }
  }

  public static SignalSettings defaults(String podId) {
    return new SignalSettings(podId, Duration.ofMillis(200), Duration.ofMillis(200), 500, 20, Duration.ofSeconds(2),
        Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30), Duration.ofMinutes(10),
        Duration.ofHours(1), Duration.ofMinutes(1), 5_000, 20, Duration.ZERO);
  }

  /**
   * CONTRACT section 7's default {@code pod.id}: host name + pid. Reads the environment only (no DNS
   * lookup), so it is safe anywhere; {@code HOSTNAME} is set in containers.
   */
  public static String defaultPodId() {
    String host = System.getenv("HOSTNAME");
    if (host == null || host.isBlank()) {
      host = "localhost";
    }
    return host + "-" + ProcessHandle.current().pid();
  }
}
