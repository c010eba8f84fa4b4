package dev.cairn.relay;

import dev.cairn.CairnServer;
import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigLoader;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Cairn server for a test: the same deployment Main runs, on a free port, with its own data
 * directory. Config comes from a JSON file and {@code CAIRN_*} overrides, exactly as in production.
 */
public final class TestRelay implements AutoCloseable {
  private final Path dataDir;
  private final boolean ownsDataDir;
  private final int port;
  private final CairnServer server;

  private TestRelay(Path dataDir, boolean ownsDataDir, JsonObject fileConfig, Map<String, String> env) throws Exception {
    this.dataDir = dataDir;
    this.ownsDataDir = ownsDataDir;
    this.port = freePort();
    Path file = Files.createTempFile("cairn-test", ".json");
    Files.writeString(file, fileConfig.encodePrettily());
    Map<String, String> e = new HashMap<>(env);
    e.put("CAIRN_HTTP_PORT", String.valueOf(port));
    e.put("CAIRN_STORE_DIR", dataDir.toString());
    TestDialect.apply(dataDir, e);
    noWarmup(e);
    CairnConfig config = ConfigLoader.load(file, e);
    Files.delete(file);
    this.server = CairnServer.start(config).toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
  }

  /**
   * Tests start hundreds of relays: none warms up unless its test asks for it (StartupWarmupTest does).
   * Also for the relays tests run as processes, which get it through their environment.
   */
  public static void noWarmup(Map<String, String> env) {
    env.putIfAbsent("CAIRN_STARTUP_WARMUP", "0s");
  }

  /**
   * A server whose {@code --config} file stays where it is (it is not deleted), so a test can edit
   * it while the server runs (policy reloads its rules from it).
   */
  public static TestRelay startWithConfigFile(Path file, Map<String, String> env) throws Exception {
    return new TestRelay(Files.createTempDirectory("cairn-data"), true, file, env);
  }

  private TestRelay(Path dataDir, boolean ownsDataDir, Path file, Map<String, String> env) throws Exception {
    this.dataDir = dataDir;
    this.ownsDataDir = ownsDataDir;
    this.port = freePort();
    Map<String, String> e = new HashMap<>(env);
    e.put("CAIRN_HTTP_PORT", String.valueOf(port));
    e.put("CAIRN_STORE_DIR", dataDir.toString());
    TestDialect.apply(dataDir, e);
    noWarmup(e);
    this.server = CairnServer.start(ConfigLoader.load(file, e)).toCompletionStage().toCompletableFuture()
        .get(60, TimeUnit.SECONDS);
  }

  public static TestRelay start() throws Exception {
    return start(new JsonObject(), Map.of());
  }

  public static TestRelay start(JsonObject fileConfig, Map<String, String> env) throws Exception {
    return new TestRelay(Files.createTempDirectory("cairn-data"), true, fileConfig, env);
  }

  /** A server over an existing data directory (to test what survives a restart). */
  public static TestRelay startOn(Path dataDir, JsonObject fileConfig) throws Exception {
    return new TestRelay(dataDir, false, fileConfig, Map.of());
  }

  public int port() {
    return port;
  }

  public String wsUrl() {
    return "ws://127.0.0.1:" + port;
  }

  public String httpUrl() {
    return "http://127.0.0.1:" + port;
  }

  public Path dataDir() {
    return dataDir;
  }

  public CairnServer server() {
    return server;
  }

  /** The Prometheus text of {@code /metrics} (empty when the request fails). */
  public String metrics() {
    try {
      return http().send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(httpUrl() + "/metrics")).build(),
          java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    } catch (Exception e) {
      return "";
    }
  }

  public RelayClient connect() throws Exception {
    return RelayClient.connect(port, "/");
  }

  public RelayClient connect(String path) throws Exception {
    return RelayClient.connect(port, path);
  }

  /** Stops the server; keeps the data directory. */
  public void stop() throws Exception {
    server.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
  }

  @Override
  public void close() throws Exception {
    stop();
    if (ownsDataDir) {
      deleteTree(dataDir);
    }
  }

  /** Deletes a relay's data directory and, on the MySQL test dialect, its databases. */
  static void deleteTree(Path dir) throws IOException {
    TestDialect.drop(dir);
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** An HTTP/1.1 client for the relay's endpoints (no h2c upgrade attempt, bounded connect). */
  public static java.net.http.HttpClient http() {
    return java.net.http.HttpClient.newBuilder().version(java.net.http.HttpClient.Version.HTTP_1_1)
        .connectTimeout(java.time.Duration.ofSeconds(10)).build();
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
