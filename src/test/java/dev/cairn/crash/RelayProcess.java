package dev.cairn.crash;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged relay ({@code java -jar target/cairn.jar}) as a child process: the harness tests the
 * artifact operators run, not the test classpath. Configured by a file plus the {@code CAIRN_*} env
 * overrides for the port and the data directory, as an operator would.
 */
public final class RelayProcess implements AutoCloseable {
  private static final Duration READY_WITHIN = Duration.ofSeconds(90);

  private final Process process;
  public final int port;

  private RelayProcess(Process process, int port) {
    this.process = process;
    this.port = port;
  }

  /** The jar under test: failsafe passes {@code cairn.jar}; from an IDE, the module's target/. */
  public static Path jar() {
    Path jar = Path.of(System.getProperty("cairn.jar", "target/cairn.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar.toAbsolutePath() + " is missing: run mvn package first");
    }
    return jar;
  }

  /** Starts the relay and returns once {@code /readyz} answers 200 (every verticle up, DBs open). */
  static RelayProcess start(Path config, Path dataDir, int port, Path log) throws Exception {
    // A small heap: the machine is shared, and the relay must not need more for this load.
    return start(List.of("-Xmx384m"), Map.of(), config, dataDir, port, log);
  }

  /** The same with these JVM options and extra {@code CAIRN_*} environment overrides. */
  public static RelayProcess start(List<String> jvmOptions, Map<String, String> env, Path config, Path dataDir,
      int port, Path log) throws Exception {
    RelayProcess relay = launch(jvmOptions, env, config, dataDir, port, log);
    relay.awaitReady(log);
    return relay;
  }

  /** The same, returning as soon as the process runs (before it is ready). */
  public static RelayProcess launch(List<String> jvmOptions, Map<String, String> env, Path config, Path dataDir,
      int port, Path log) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.addAll(List.of("-jar", jar().toString(), "--config", config.toString()));
    ProcessBuilder pb = new ProcessBuilder(command);
    pb.environment().putAll(env);
    dev.cairn.relay.TestRelay.noWarmup(pb.environment());
    pb.environment().put("CAIRN_HTTP_PORT", String.valueOf(port));
    pb.environment().put("CAIRN_STORE_DIR", dataDir.toString());
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    return new RelayProcess(pb.start(), port);
  }

  private void awaitReady(Path log) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("relay exited with " + process.exitValue() + ":\n" + Files.readString(log));
      }
      try {
        HttpResponse<Void> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
            .timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.discarding());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(100);
    }
    process.destroyForcibly();
    throw new AssertionError("relay not ready on " + port + " within " + READY_WITHIN + ":\n" + Files.readString(log));
  }

  /** Waits for the process to end by itself; its exit code, or null when it still ran after {@code within}. */
  public Integer awaitExit(Duration within) throws InterruptedException {
    return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : null;
  }

  long pid() {
    return process.pid();
  }

  /** SIGKILL (Process.destroyForcibly is kill -9 on Unix): no shutdown hook, no flush, no close. */
  public void kill9() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("relay " + process.pid() + " survived SIGKILL for 30 s");
    }
  }

  /** SIGTERM, the orderly stop, used once a round's checks are done. */
  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }
}
