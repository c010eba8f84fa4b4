package dev.cairn.feed;

import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Helpers shared by the feed tests: bulk publishing, metrics, the tenant DB from outside. */
final class FeedSupport {
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();

  private FeedSupport() {}

  /** {@code n} signed kind-1 notes. */
  static List<JsonObject> notes(EventSigner signer, int n, String prefix) {
    List<JsonObject> out = new ArrayList<>(n);
    long now = Events.now();
    for (int i = 0; i < n; i++) {
      out.add(Events.signed(signer, 1, now, List.of(), prefix + " " + i));
    }
    return out;
  }

  /** Publishes in windows of 500 and waits for every OK; asserts each is OK true. */
  static void publishAll(RelayClient c, List<JsonObject> events) throws InterruptedException {
    for (int from = 0; from < events.size(); from += 500) {
      List<JsonObject> window = events.subList(from, Math.min(events.size(), from + 500));
      Set<String> waiting = new HashSet<>();
      for (JsonObject e : window) {
        waiting.add(e.getString("id"));
        c.publish(e);
      }
      while (!waiting.isEmpty()) {
        JsonArray ok = c.await(f -> f.getString(0).equals("OK") && waiting.contains(f.getString(1)),
            Duration.ofSeconds(30));
        if (!ok.getBoolean(2)) {
          throw new AssertionError("OK false: " + ok.encode());
        }
        waiting.remove(ok.getString(1));
      }
    }
  }

  /** GET, the body as text. */
  static String fetch(String url) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString()).body();
  }

  static String scrape(TestRelay relay) throws Exception {
    HttpResponse<String> r = HTTP.send(
        HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    return r.body();
  }

  /** A counter or gauge value from the exposition: {@code name{labels}} (labels in exposition order), 0 when absent. */
  static double metric(TestRelay relay, String name, String labels) throws Exception {
    String prefix = labels.isEmpty() ? name + " " : name + "{" + labels + "} ";
    prefix = labels.isEmpty() ? prefix : prefix;
    for (String line : scrape(relay).split("\n")) {
      if (line.startsWith(prefix) || (labels.isEmpty() && line.startsWith(name + "{} "))) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }

  /** Sum of every series of {@code name} whose labels contain all of {@code parts}. */
  static double sum(TestRelay relay, String name, String... parts) throws Exception {
    double total = 0;
    for (String line : scrape(relay).split("\n")) {
      if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
        continue;
      }
      boolean all = true;
      for (String p : parts) {
        all &= line.contains(p);
      }
      if (all) {
        total += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return total;
  }

  static Path tenantDb(TestRelay relay, String tenant) {
    return relay.dataDir().resolve("tenants").resolve(tenant + ".db");
  }

  /** Runs SQL on the tenant DB through a connection of the test's own (the relay keeps its own open). */
  static void sql(TestRelay relay, String tenant, String sql) throws Exception {
    if (dev.cairn.relay.TestDialect.mysql()) {
      dev.cairn.relay.TestDialect.execute(relay.dataDir(), tenant, sql);
      return;
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + tenantDb(relay, tenant));
        Statement st = c.createStatement()) {
      st.execute("PRAGMA busy_timeout = 5000");
      st.execute(sql);
    }
  }

  /** Makes the feed table unwritable: every insert aborts. */
  static void breakFeed(TestRelay relay, String tenant) throws Exception {
    if (dev.cairn.relay.TestDialect.mysql()) {
      sql(relay, tenant, "CREATE TRIGGER feed_fault BEFORE INSERT ON feed_events FOR EACH ROW"
          + " SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'injected'");
      return;
    }
    sql(relay, tenant, "CREATE TRIGGER feed_fault BEFORE INSERT ON feed_events BEGIN SELECT RAISE(ABORT, 'injected'); END");
  }

  static void healFeed(TestRelay relay, String tenant) throws Exception {
    sql(relay, tenant, "DROP TRIGGER feed_fault");
  }
}
