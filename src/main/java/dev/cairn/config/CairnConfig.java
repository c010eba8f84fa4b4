package dev.cairn.config;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The effective configuration, typed. Built by {@link ConfigLoader} from the defaults, the optional
 * {@code --config} file and {@code CAIRN_*} environment overrides, in that order. {@code tenants} are the
 * config file's; {@code directory} is the live set (runtime tenants of the meta DB included).
 */
public record CairnConfig(
    JsonObject raw,
    List<Bind> binds,
    String tlsCert,
    String tlsKey,
    String tlsEngine,
    Duration headerTimeout,
    boolean logJson,
    StoreTarget store,
    String podId,
    Path storeDir,
    int storeReaders,
    int storeWriters,
    int maxBatch,
    StoreOptions storeOptions,
    Duration shutdownFlushBudget,
    Duration startupWarmup,
    int channelCapacity,
    int sigWorkers,
    int connWorkers,
    int eventLoops,
    long sendRetryWindowMillis,
    Limits limits,
    JsonObject relayInfo,
    Map<String, TenantConfig> tenants,
    PolicyConfig policy,
    ConfigSource source,
    TenantDirectory directory) {

  /** One bind address: one listener. */
  public record Bind(String host, int port) {
    @Override
    public String toString() {
      return host + ":" + port;
    }
  }

  /** {@code tls.engine}: netty-tcnative (OpenSSL/BoringSSL) when it loads, else the JDK's. */
  public static final String TLS_AUTO = "auto";
  /** {@code tls.engine}: netty-tcnative only; the listener does not start without it. */
  public static final String TLS_OPENSSL = "openssl";
  /** {@code tls.engine}: the JDK's SSLEngine. */
  public static final String TLS_JDK = "jdk";

  static CairnConfig from(JsonObject j, ConfigSource source) {
    JsonObject http = j.getJsonObject("http");
    JsonObject tls = j.getJsonObject("tls");
    String tlsEngine = tls.getString("engine", TLS_AUTO);
    if (!List.of(TLS_AUTO, TLS_OPENSSL, TLS_JDK).contains(tlsEngine)) {
      throw new ConfigException("tls.engine: \"" + tlsEngine + "\" must be auto, openssl or jdk");
    }
    if (tls.getString("cert").isEmpty() != tls.getString("key").isEmpty()) {
      throw new ConfigException("tls.cert and tls.key: set both (TLS) or neither (plain TCP)");
    }
    Duration headerTimeout = Durations.parse("http.header_timeout", http.getString("header_timeout", "10s"));
    if (!headerTimeout.isZero() && headerTimeout.toMillis() < 100) {
      throw new ConfigException("http.header_timeout: at least 100ms (or 0s: no bound)");
    }
    List<Bind> binds = new ArrayList<>();
    JsonArray extra = http.getJsonArray("binds", new JsonArray());
    if (extra.isEmpty()) {
      binds.add(new Bind(http.getString("host"), http.getInteger("port")));
    } else {
      for (Object b : extra) {
        String s = String.valueOf(b);
        int colon = s.lastIndexOf(':');
        if (colon <= 0) {
          throw new ConfigException("http.binds: \"" + s + "\" must be host:port");
        }
        binds.add(new Bind(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1))));
      }
      if (binds.size() > 64) {
        throw new ConfigException("http.binds: at most 64 addresses, got " + binds.size());
      }
    }
    JsonObject tree = j.getJsonObject("tree");
    int cores = Runtime.getRuntime().availableProcessors();
    JsonObject relay = j.getJsonObject("relay");
    Map<String, TenantConfig> tenants = new LinkedHashMap<>();
    tenants.put(TenantConfig.DEFAULT, TenantConfig.from(new JsonObject().put("id", TenantConfig.DEFAULT), relay));
    for (Object o : j.getJsonArray("tenants", new JsonArray())) {
      if (!(o instanceof JsonObject t)) {
        throw new ConfigException("tenants: every entry must be an object with an \"id\"");
      }
      TenantConfig tc = TenantConfig.from(t, relay);
      tenants.put(tc.id(), tc);
    }
    JsonObject store = j.getJsonObject("store");
    return new CairnConfig(
        j,
        List.copyOf(binds),
        tls.getString("cert"),
        tls.getString("key"),
        tlsEngine,
        headerTimeout,
        j.getJsonObject("log").getBoolean("json"),
        StoreTarget.from(store),
        podId(j.getJsonObject("pod").getString("id", "")),
        Path.of(store.getString("dir")),
        store.getInteger("readers"),
        store.getInteger("writers", 0) > 0 ? store.getInteger("writers") : Math.max(2, cores),
        store.getInteger("max_batch"),
        StoreOptions.from(store),
        Durations.parse("shutdown.flush_budget", j.getJsonObject("shutdown").getString("flush_budget")),
        startupWarmup(j.getJsonObject("startup").getString("warmup")),
        tree.getInteger("channel_capacity"),
        tree.getInteger("sig_workers") > 0 ? tree.getInteger("sig_workers") : cores,
        tree.getInteger("conn_workers") > 0 ? tree.getInteger("conn_workers") : cores,
        // half the cores: the store's readers and writer and the signature workers run beside them (decision 0018)
        tree.getInteger("event_loops", 0) > 0 ? tree.getInteger("event_loops") : Math.max(1, cores / 2),
        Durations.parse("tree.send_retry_window", tree.getString("send_retry_window")).toMillis(),
        Limits.from(j.getJsonObject("limits")),
        relay,
        Map.copyOf(tenants),
        PolicyConfig.from(j),
        source,
        new TenantDirectory(tenants));
  }

  /** {@code startup.warmup}: 0s (off) up to a minute. */
  static Duration startupWarmup(String text) {
    Duration d = Durations.parse("startup.warmup", text);
    if (d.compareTo(Duration.ofMinutes(1)) > 0) {
      throw new ConfigException("startup.warmup: at most 60s (or 0s: no warm-up), got " + text);
    }
    return d;
  }

  /** {@code pod.id}, or the host name and process id when it is empty. */
  static String podId(String configured) {
    if (!configured.isBlank()) {
      return configured.strip();
    }
    String host;
    try {
      host = java.net.InetAddress.getLocalHost().getHostName();
    } catch (java.io.IOException e) {
      host = "localhost";
    }
    return host + "-" + ProcessHandle.current().pid();
  }

  /** {@code relay.public_url} in its normal form, "" when not set: where clients reach the default tenant. */
  public String publicUrl() {
    return tenant(TenantConfig.DEFAULT).publicUrl();
  }

  /** A tenant of the config file (the tenants served now, runtime ones included: {@link #directory()}). */
  public TenantConfig tenant(String id) {
    return tenants.get(id);
  }
}
