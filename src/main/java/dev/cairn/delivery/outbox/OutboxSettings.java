package dev.cairn.delivery.outbox;

import dev.cairn.config.ConfigException;
import dev.cairn.config.Durations;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * The outbox keys of the config (CONTRACT section 5): {@code outbox.*}, {@code nats.*},
 * {@code forward.relays}. Leases default to the seed's 600 s (row claim) and 1800 s (ledger claim).
 */
public record OutboxSettings(
    String backend,
    int maxAttempts,
    int batch,
    long claimLeaseMs,
    long ledgerLeaseMs,
    String natsUrl,
    String natsMode,
    String stream,
    String subjectPrefix,
    java.time.Duration streamMaxAge,
    List<String> forwardRelays) {

  public static final String DB = "db";
  public static final String NATS = "nats";
  public static final String JETSTREAM = "jetstream";
  public static final String CORE = "core";

  /** Whether any handler runs outside the DB (the nats backend, or relays to forward to). */
  public boolean deliversOutsideTheDb() {
    return !DB.equals(backend) || !forwardRelays.isEmpty();
  }

  /** {@code outbox.backend=nats}: every row is relayed to NATS (the handlers consume from there). */
  public boolean relaysToNats() {
    return NATS.equals(backend);
  }

  public static OutboxSettings from(JsonObject raw) {
    JsonObject outbox = raw.getJsonObject("outbox", new JsonObject());
    JsonObject nats = raw.getJsonObject("nats", new JsonObject());
    JsonObject forward = raw.getJsonObject("forward", new JsonObject());
    String backend = outbox.getString("backend", DB);
    if (!backend.equals(DB) && !backend.equals(NATS)) {
      throw new ConfigException("outbox.backend: \"" + backend + "\" must be db or nats");
    }
    String mode = nats.getString("mode", JETSTREAM);
    if (!mode.equals(JETSTREAM) && !mode.equals(CORE)) {
      throw new ConfigException("nats.mode: \"" + mode + "\" must be jetstream or core");
    }
    int maxAttempts = outbox.getInteger("max_attempts", 10);
    if (maxAttempts < 1) {
      throw new ConfigException("outbox.max_attempts must be at least 1");
    }
    java.time.Duration maxAge = Durations.parse("nats.stream_max_age", nats.getString("stream_max_age", "168h"));
    if (!maxAge.isZero() && maxAge.compareTo(StreamReconciler.DUPLICATE_WINDOW) < 0) {
      // JetStream refuses a duplicate window longer than max_age, and dedup is what the window is for.
      throw new ConfigException("nats.stream_max_age: " + maxAge + " is shorter than the stream's 1h duplicate window;"
          + " give 0s (keep forever) or at least 1h");
    }
    List<String> relays = new ArrayList<>();
    for (Object o : forward.getJsonArray("relays", new JsonArray())) {
      relays.add(String.valueOf(o));
    }
    return new OutboxSettings(backend, maxAttempts, Math.max(1, outbox.getInteger("batch", 256)),
        Durations.parse("outbox.claim_lease", outbox.getString("claim_lease", "600s")).toMillis(),
        Durations.parse("outbox.ledger_lease", outbox.getString("ledger_lease", "1800s")).toMillis(),
        nats.getString("url", "nats://127.0.0.1:4222"), mode, nats.getString("stream", "CAIRN_OUTBOX"),
        nats.getString("subject_prefix", "cairn"), maxAge, List.copyOf(relays));
  }

  /** {@code <prefix>.<tenant>.<type>}, e.g. {@code cairn.default.EventStored}. */
  public String subject(String tenant, String type) {
    return subjectPrefix + "." + tenant + "." + type;
  }

  /** Every subject of the stream: {@code <prefix>.>}. */
  public String subjects() {
    return subjectPrefix + ".>";
  }
}
