package dev.cairn.network.live;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigException;
import io.vertx.core.json.JsonObject;

/**
 * Live fan-out across pods (CONTRACT section 7): whether it runs, where NATS is, the subject prefix and
 * this pod's id ({@code pod.id}). {@code live.enabled}: {@code auto} (default) turns it on exactly when
 * {@code store.dialect} is {@code mysql} (several pods share the tenant DBs, so each must hear the others'
 * writes) and leaves the embedded single pod without NATS; {@code true} / {@code false} force it.
 */
public record LiveSettings(boolean enabled, String natsUrl, String subjectPrefix, String podId) {
  /** {@code live.enabled} default: on exactly when the tenants live in MySQL. */
  public static final String AUTO = "auto";

  /** Every tenant's subject is {@code <prefix>-live.<tenant>}: outside the outbox stream's {@code <prefix>.>}. */
  public String subject(String tenant) {
    return subjectPrefix + "-live." + tenant;
  }

  /** The wildcard a pod subscribes to: every tenant's live events. */
  public String wildcard() {
    return subjectPrefix + "-live.>";
  }

  public static LiveSettings from(CairnConfig config) {
    JsonObject raw = config.raw();
    JsonObject nats = raw.getJsonObject("nats", new JsonObject());
    String mode = String.valueOf(raw.getJsonObject("live", new JsonObject()).getValue("enabled", AUTO));
    boolean enabled = switch (mode) {
      case AUTO -> config.store().mysql();
      case "true" -> true;
      case "false" -> false;
      default -> throw new ConfigException("live.enabled: \"" + mode + "\" must be auto, true or false");
    };
    return new LiveSettings(enabled, nats.getString("url", "nats://127.0.0.1:4222"),
        nats.getString("subject_prefix", "cairn"), config.podId());
  }
}
