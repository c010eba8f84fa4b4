package dev.cairn.network.live;

import io.vertx.core.json.JsonObject;
import java.net.InetAddress;

/**
 * Live fan-out across pods (CONTRACT section 7): whether it runs, where NATS is, the subject prefix and
 * this pod's id. On with {@code live.enabled}, or whenever {@code store.dialect} is {@code mysql}
 * (several pods share the tenant DBs, so each must hear the others' writes); off for the embedded
 * single pod, which then needs no NATS.
 */
public record LiveSettings(boolean enabled, String natsUrl, String subjectPrefix, String podId) {

  /** Every tenant's subject is {@code <prefix>-live.<tenant>}: outside the outbox stream's {@code <prefix>.>}. */
  public String subject(String tenant) {
    return subjectPrefix + "-live." + tenant;
  }

  /** The wildcard a pod subscribes to: every tenant's live events. */
  public String wildcard() {
    return subjectPrefix + "-live.>";
  }

  public static LiveSettings from(JsonObject raw) {
    JsonObject live = raw.getJsonObject("live", new JsonObject());
    JsonObject store = raw.getJsonObject("store", new JsonObject());
    JsonObject nats = raw.getJsonObject("nats", new JsonObject());
    boolean enabled = live.getBoolean("enabled", false) || "mysql".equals(store.getString("dialect", "sqlite"));
    return new LiveSettings(enabled, nats.getString("url", "nats://127.0.0.1:4222"),
        nats.getString("subject_prefix", "cairn"), podId(raw));
  }

  /** {@code pod.id}, or host name + pid when empty (unique per process on one host, and across hosts). */
  public static String podId(JsonObject raw) {
    String id = raw.getJsonObject("pod", new JsonObject()).getString("id", "");
    if (!id.isBlank()) {
      return id;
    }
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = "unknown-host";
    }
    return host + "-" + ProcessHandle.current().pid();
  }
}
