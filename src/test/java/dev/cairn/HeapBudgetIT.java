package dev.cairn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.crash.RelayProcess;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The heap budget on the packaged relay ({@code java -jar target/cairn.jar}): it needs a JVM started
 * without a heap size, which the test JVM is not. Over the budget, full collections are asked for and
 * counted; with {@code -Xmx} it stays off.
 */
class HeapBudgetIT {
  private static final Pattern COLLECTIONS = Pattern.compile("(?m)^cairn_heap_budget_collections_total(?:\\{[^}]*})? (\\S+)$");

  @TempDir Path dir;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void withoutAHeapSizeACommittedHeapOverTheBudgetIsCollectedAndCounted() throws Exception {
    Path log = dir.resolve("relay.log");
    // 64 MB: below the heap the JVM commits at start (1/64 of the machine's memory), so the first
    // young collection after start finds more committed than the budget.
    try (RelayProcess relay = RelayProcess.start(List.of(), Map.of("CAIRN_LIMITS_HEAP_BUDGET_BYTES", "67108864",
        "CAIRN_HTTP_HOST", "127.0.0.1"), config(), dir.resolve("data"), freePort(), log)) {
      double collections = 0;
      long deadline = System.nanoTime() + 60_000_000_000L;
      // each scrape allocates; young collections follow, then the budget's full collection
      while (collections < 1 && System.nanoTime() < deadline) {
        collections = collections(metrics(relay.port));
      }
      assertTrue(collections >= 1, "no full collection asked for within 60 s; log:\n" + Files.readString(log));
      String text = Files.readString(log);
      assertTrue(text.contains("heap budget 64 MB (limits.heap_budget_bytes)"), text);
    }
  }

  @Test
  void anExplicitHeapSizeTurnsTheBudgetOff() throws Exception {
    Path log = dir.resolve("relay.log");
    try (RelayProcess relay = RelayProcess.start(List.of("-Xmx256m"), Map.of("CAIRN_LIMITS_HEAP_BUDGET_BYTES", "1048576",
        "CAIRN_HTTP_HOST", "127.0.0.1"), config(), dir.resolve("data"), freePort(), log)) {
      for (int i = 0; i < 200; i++) {
        metrics(relay.port);
      }
      String text = Files.readString(log);
      assertTrue(text.contains("heap budget off: the JVM's heap is bounded by MaxHeapSize=268435456"), text);
      assertFalse(COLLECTIONS.matcher(metrics(relay.port)).find(), "the budget's counter exists with -Xmx");
    }
  }

  private Path config() throws Exception {
    Path config = dir.resolve("cairn.json");
    Files.writeString(config, "{}");
    return config;
  }

  private String metrics(int port) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    return r.body();
  }

  private static double collections(String metrics) {
    Matcher m = COLLECTIONS.matcher(metrics);
    return m.find() ? Double.parseDouble(m.group(1)) : 0;
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
