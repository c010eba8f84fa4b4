package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The plain HTTP endpoints of CONTRACT section 2 and the metric names of section 6. */
class HttpEndpointsTest {
  private static final String NAME = "Endpoint Test Relay";
  private static TestRelay relay;
  private static final HttpClient HTTP = TestRelay.http();

  @BeforeAll
  static void start() throws Exception {
    relay = TestRelay.start(new JsonObject().put("relay", new JsonObject().put("name", NAME)), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    if (relay != null) {
      relay.close();
    }
  }

  private static HttpResponse<String> get(String path, String accept) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(relay.httpUrl() + path));
    if (accept != null) {
      b.header("Accept", accept);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The value of the sample whose line starts with {@code name{...} } and has all {@code labels}. */
  private static Double sample(String metrics, String name, String... labels) {
    Pattern p = Pattern.compile("^" + Pattern.quote(name) + "(\\{[^}]*\\})? ([-+0-9.eE]+|NaN)$", Pattern.MULTILINE);
    Matcher m = p.matcher(metrics);
    while (m.find()) {
      String l = m.group(1) == null ? "" : m.group(1);
      boolean all = true;
      for (String label : labels) {
        all &= l.contains(label);
      }
      if (all) {
        return Double.parseDouble(m.group(2));
      }
    }
    return null;
  }

  @Test
  void healthz() throws Exception {
    HttpResponse<String> r = get("/healthz", null);
    assertEquals(200, r.statusCode());
    assertEquals("ok", new JsonObject(r.body()).getString("status"));
  }

  @Test
  void readyz() throws Exception {
    HttpResponse<String> r = get("/readyz", null);
    assertEquals(200, r.statusCode(), r.body());
    new JsonObject(r.body()); // JSON body
  }

  @Test
  void metricsAfterPublish() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject e = Events.note(EventSigner.random(), "counted", List.of());
      assertTrue(c.publishAndWait(e).getBoolean(2));
      JsonObject bad = Events.note(EventSigner.random(), "tampered", List.of());
      bad.put("content", "changed");
      c.publish(bad);
      c.await(f -> f.getString(0).equals("OK") && bad.getString("id").equals(f.getString(1)));
      c.req("open", new JsonObject().put("limit", 0));
      c.awaitType("EOSE");

      HttpResponse<String> r = get("/metrics", null);
      assertEquals(200, r.statusCode());
      assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/plain"),
          r.headers().toString());
      String m = r.body();
      Double accepted = sample(m, "cairn_events_received_total", "tenant=\"default\"", "result=\"accepted\"");
      assertTrue(accepted != null && accepted >= 1, "accepted counter with tenant and result labels:\n" + m);
      Double invalid = sample(m, "cairn_events_received_total", "tenant=\"default\"", "result=\"invalid\"");
      assertTrue(invalid != null && invalid >= 1, "invalid counter:\n" + m);
      Double stored = sample(m, "cairn_events_stored_total", "tenant=\"default\"");
      assertTrue(stored != null && stored >= 1, "stored counter:\n" + m);
      Double conns = sample(m, "cairn_connections", "tenant=\"default\"");
      assertTrue(conns != null && conns >= 1, "connections gauge with this connection open:\n" + m);
      Double subs = sample(m, "cairn_subscriptions", "tenant=\"default\"");
      assertTrue(subs != null && subs >= 1, "subscriptions gauge with one REQ open:\n" + m);
      assertTrue(Pattern.compile("^cairn_sig_verify_seconds\\w*(\\{[^}]*\\})? ", Pattern.MULTILINE).matcher(m).find(),
          "sig verify timer:\n" + m);
      Double verifyCount = sample(m, "cairn_sig_verify_seconds_count");
      assertTrue(verifyCount != null && verifyCount >= 1, "sig verify timer count:\n" + m);
      Double commits = sample(m, "cairn_store_commit_seconds_count");
      assertTrue(commits != null && commits >= 1, "group commit timer count:\n" + m);
      Double committedEvents = sample(m, "cairn_store_commit_events_sum");
      assertTrue(committedEvents != null && committedEvents >= stored, "events in group commits, at least those stored:\n" + m);
    }
  }

  @Test
  void statusPageIsHtmlWithTenantName() throws Exception {
    HttpResponse<String> r = get("/", null);
    assertEquals(200, r.statusCode());
    assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("text/html"), r.headers().toString());
    assertTrue(r.body().contains("<html") && r.body().contains(NAME), r.body());
  }

  @Test
  void nip11DocumentWithCors() throws Exception {
    HttpResponse<String> r = get("/", "application/nostr+json");
    assertEquals(200, r.statusCode());
    assertEquals("*", r.headers().firstValue("access-control-allow-origin").orElse(null));
    assertTrue(r.headers().firstValue("content-type").orElse("").startsWith("application/nostr+json"));
    JsonObject doc = new JsonObject(r.body());
    assertEquals(NAME, doc.getString("name"));
    JsonArray nips = doc.getJsonArray("supported_nips");
    for (int nip : new int[] {1, 9, 11, 40, 45}) {
      assertTrue(nips.contains(nip), "supported_nips lacks " + nip + ": " + nips);
    }
    assertTrue(doc.getJsonObject("limitation") != null);
  }

  @Test
  void nip11PreflightAllowsAnyOrigin() throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/"))
        .method("OPTIONS", HttpRequest.BodyPublishers.noBody())
        .header("Origin", "https://example.org")
        .header("Access-Control-Request-Method", "GET").build(), HttpResponse.BodyHandlers.ofString());
    assertTrue(r.statusCode() / 100 == 2, "preflight status " + r.statusCode());
    assertEquals("*", r.headers().firstValue("access-control-allow-origin").orElse(null));
  }
}
