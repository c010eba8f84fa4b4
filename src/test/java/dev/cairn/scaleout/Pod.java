package dev.cairn.scaleout;

import java.io.IOException;
import java.net.ServerSocket;
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
 * One Cairn pod: the packaged jar ({@code target/cairn.jar}) as a process of its own, configured only by
 * {@code CAIRN_*} environment variables as an operator's pod would be.
 */
final class Pod implements AutoCloseable {
  private static final Duration READY_WITHIN = Duration.ofSeconds(90);

  final String id;
  final int port;
  final Path log;
  private final Process process;

  private Pod(String id, int port, Path log, Process process) {
    this.id = id;
    this.port = port;
    this.log = log;
    this.process = process;
  }

  static Path jar() {
    Path jar = Path.of(System.getProperty("cairn.jar", "target/cairn.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar.toAbsolutePath() + " is missing: run mvn package first");
    }
    return jar;
  }

  /** Starts pod {@code id} with {@code env} and returns once its {@code /readyz} answers 200. */
  static Pod start(String id, Path dir, Map<String, String> env) throws Exception {
    return start(id, dir, env, null);
  }

  /** As {@link #start(String, Path, Map)}, with a {@code --config} file when {@code config} is not null. */
  static Pod start(String id, Path dir, Map<String, String> env, Path config) throws Exception {
    int port = freePort();
    Path data = Files.createDirectories(dir.resolve(id));
    Path log = dir.resolve(id + ".log");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx384m", "-jar", jar().toString()));
    if (config != null) {
      cmd.addAll(List.of("--config", config.toString()));
    }
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    dev.cairn.relay.TestRelay.noWarmup(pb.environment());
    pb.environment().put("CAIRN_POD_ID", id);
    pb.environment().put("CAIRN_HTTP_PORT", String.valueOf(port));
    pb.environment().put("CAIRN_STORE_DIR", data.toString());
    pb.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Pod pod = new Pod(id, port, log, pb.start());
    pod.awaitReady();
    return pod;
  }

  private void awaitReady() throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + READY_WITHIN.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new AssertionError("pod " + id + " exited with " + process.exitValue() + ":\n" + Files.readString(log));
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
    throw new AssertionError("pod " + id + " not ready within " + READY_WITHIN + ":\n" + Files.readString(log));
  }

  /** The Prometheus text of the pod's {@code /metrics}. */
  String metrics() throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
        .build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  /** SIGKILL: no shutdown hook, no flush. */
  void kill9() throws InterruptedException {
    process.destroyForcibly();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      throw new AssertionError("pod " + id + " survived SIGKILL for 30 s");
    }
  }

  /** SIGSTOP / SIGCONT: the whole process stands still (a stalled pod), then goes on where it was. */
  void signal(String sig) throws Exception {
    Process p = new ProcessBuilder("kill", "-" + sig, String.valueOf(process.pid())).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new AssertionError("kill -" + sig + " " + process.pid() + " failed");
    }
  }

  boolean alive() {
    return process.isAlive();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
