package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Issue 10: runtime tenants through {@code /admin/tenants}. Two pods on one MySQL meta DB (the CI MariaDB):
 * a tenant PUT on one pod is served by both within seconds, its events are shared, a DELETE makes it
 * unknown on both; the token, the body and the dialect are checked. The MySQL cases are skipped without
 * MySQL at 127.0.0.1:3306.
 */
class RuntimeTenantsTest {
  private static final String TOKEN = "test-admin-token";
  private static final HttpClient HTTP = TestRelay.http();
  /** How long a pod may take to pick a registry change up (poll interval 500 ms here). */
  private static final long PICKUP_MS = 15_000;

  private static boolean reachable(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  private static void assumeMysql() {
    Assumptions.assumeTrue(reachable(3306), "MySQL is not reachable at 127.0.0.1:3306");
  }

  /**
   * Env of a pod of the cluster whose meta DB is named after {@code cluster}; live fan-out over the CI NATS
   * (subjects of this cluster only) when {@code live}.
   */
  private static Map<String, String> pod(Path cluster, String podId, boolean live) {
    Map<String, String> env = new HashMap<>();
    env.put("CAIRN_STORE_DIALECT", "mysql");
    env.put("CAIRN_STORE_URL", TestDialect.server() + "/" + TestDialect.metaDb(cluster));
    env.put("CAIRN_LIVE_ENABLED", String.valueOf(live));
    env.put("CAIRN_NATS_SUBJECT_PREFIX", "cairnrt" + Integer.toHexString(cluster.hashCode()));
    env.put("CAIRN_POD_ID", podId);
    env.put("CAIRN_ADMIN_TOKEN", TOKEN);
    env.put("CAIRN_STORE_TENANTS_POLL_INTERVAL", "500ms");
    return env;
  }

  private static Path cluster() {
    return Path.of(System.getProperty("java.io.tmpdir"), "cairn-runtime-tenants-" + UUID.randomUUID());
  }

  @Test
  void aTenantPutOnOnePodIsServedByBothAndGoneFromBothAfterDelete() throws Exception {
    assumeMysql();
    Path cluster = cluster();
    boolean live = reachable(4222); // without NATS pod A does not learn of pod B's writes (docs/scale-out.md)
    try (TestRelay a = TestRelay.start(new JsonObject(), pod(cluster, "pod-a", live));
        TestRelay b = TestRelay.start(new JsonObject(), pod(cluster, "pod-b", live))) {
      String id = "rt" + Long.toHexString(System.nanoTime());
      assertEquals(404, nip11(b, id).statusCode());

      HttpResponse<String> put = send(a, "PUT", id, new JsonObject().put("name", "Runtime One")
          .put("description", "made at runtime").encode(), TOKEN);
      assertEquals(201, put.statusCode(), put.body());
      assertEquals(id, new JsonObject(put.body()).getString("id"));

      // pod B learns of it from the registry within seconds; NIP-11 carries the body's name
      awaitStatus(b, id, r -> r.statusCode() == 200 && "Runtime One".equals(new JsonObject(r.body()).getString("name")));
      awaitStatus(a, id, r -> r.statusCode() == 200);

      // an event written on pod B is stored in the tenant's DB: a REQ on B reads it, and on A (history or
      // live, whichever comes first) when the pods share NATS
      EventSigner signer = EventSigner.random();
      JsonObject event = Events.note(signer, "hello runtime tenant", List.of());
      JsonObject byId = new JsonObject().put("ids", new JsonArray().add(event.getString("id")));
      try (RelayClient onB = b.connect("/t/" + id)) {
        JsonArray ok = onB.publishAndWait(event);
        assertTrue(ok.getBoolean(2), ok.encode());
        assertEquals(1, onB.query("q", byId).size(), "pod B reads the event it stored");
      }
      if (live) {
        try (RelayClient onA = a.connect("/t/" + id)) {
          onA.req("q", byId);
          JsonArray got = onA.await(f -> f.getString(0).equals("EVENT"), java.time.Duration.ofMillis(PICKUP_MS));
          assertEquals(event.getString("id"), got.getJsonObject(2).getString("id"), "pod A sees the event pod B stored");
        }
      }
      // ... and only there: the default tenant does not have it
      try (RelayClient dflt = a.connect()) {
        assertTrue(dflt.query("q", new JsonObject().put("ids", new JsonArray().add(event.getString("id")))).isEmpty());
      }

      // a replacement is picked up too (200: it existed)
      HttpResponse<String> again = send(b, "PUT", id, new JsonObject().put("name", "Runtime Renamed").encode(), TOKEN);
      assertEquals(200, again.statusCode(), again.body());
      awaitStatus(a, id, r -> r.statusCode() == 200 && "Runtime Renamed".equals(new JsonObject(r.body()).getString("name")));

      HttpResponse<String> list = send(a, "GET", null, null, TOKEN);
      assertEquals(200, list.statusCode(), list.body());
      assertTrue(new JsonObject(list.body()).getJsonArray("tenants").stream()
          .anyMatch(t -> id.equals(((JsonObject) t).getString("id"))), list.body());
      assertEquals(200, send(b, "GET", id, null, TOKEN).statusCode());

      RelayClient held = a.connect("/t/" + id); // connected before the DELETE
      HttpResponse<String> del = send(b, "DELETE", id, null, TOKEN);
      assertEquals(200, del.statusCode(), del.body());
      awaitStatus(a, id, r -> r.statusCode() == 404);
      awaitStatus(b, id, r -> r.statusCode() == 404);
      try (held) {
        JsonArray refused = held.publishAndWait(Events.note(signer, "after the delete", List.of()));
        assertFalse(refused.getBoolean(2), "a write to a removed tenant is refused: " + refused.encode());
        assertTrue(refused.getString(3).startsWith("blocked:"), refused.encode());
      }
      assertThrows(Exception.class, () -> a.connect("/t/" + id).close(), "a removed tenant refuses WebSockets");
      assertEquals(404, send(a, "GET", id, null, TOKEN).statusCode());
      assertEquals(404, send(a, "DELETE", id, null, TOKEN).statusCode(), "deleting twice: nothing to delete");
    } finally {
      TestDialect.dropDatabases(cluster);
    }
  }

  @Test
  void tokenIdsAndBodiesAreChecked() throws Exception {
    assumeMysql();
    Path cluster = cluster();
    try (TestRelay a = TestRelay.start(new JsonObject(), pod(cluster, "pod-a", false))) {
      String body = new JsonObject().put("name", "x").encode();
      assertEquals(401, send(a, "PUT", "acme", body, null).statusCode(), "no token");
      assertEquals(401, send(a, "PUT", "acme", body, "wrong").statusCode(), "wrong token");
      assertEquals(401, send(a, "GET", null, null, TOKEN + "x").statusCode(), "wrong token, longer");
      assertEquals(400, send(a, "PUT", "Bad_Id!", body, TOKEN).statusCode());
      assertBadRequest(a, "not json", "not JSON");
      assertBadRequest(a, "[1,2]", "JSON object");
      assertBadRequest(a, new JsonObject().put("hosts", "example.com").encode(), "wrong type");
      assertBadRequest(a, new JsonObject().put("admin_pubkeys", new JsonArray().add("zz")).encode(), "admin_pubkeys");
      assertBadRequest(a, new JsonObject().put("policy", new JsonObject()).encode(), "policy");
      assertBadRequest(a, new JsonObject().put("nmae", "typo").encode(), "nmae");
      assertBadRequest(a, new JsonObject().put("placement", "elsewhere").encode(), "placement");
      assertBadRequest(a, new JsonObject().put("id", "other").encode(), "differs");
      assertEquals(400, send(a, "DELETE", "default", null, TOKEN).statusCode(), "the default tenant stays");
      assertEquals(409, send(a, "PUT", "default", body, TOKEN).statusCode(), "config-file tenants are the file's");
      assertEquals(405, send(a, "POST", "acme", body, TOKEN).statusCode());
      assertEquals(404, send(a, "GET", "nosuch", null, TOKEN).statusCode());

      // placement is fixed once the tenant exists
      assertEquals(201, send(a, "PUT", "placed", new JsonObject().put("placement", "shared").encode(), TOKEN).statusCode());
      assertEquals(409, send(a, "PUT", "placed", new JsonObject().put("placement", "dedicated").encode(), TOKEN)
          .statusCode());
      HttpResponse<String> same = send(a, "PUT", "placed", new JsonObject().put("placement", "shared")
          .put("sse", new JsonObject().put("tokens", new JsonArray().add("feed-secret"))).encode(), TOKEN);
      assertEquals(200, same.statusCode(), same.body());
      assertFalse(same.body().contains("feed-secret"), "SSE tokens are masked in answers: " + same.body());
      awaitStatus(a, "placed", r -> r.statusCode() == 200);
      // the runtime tenant's SSE tokens guard its change feed
      assertEquals(401, sse(a, "placed", null).statusCode());
      HttpResponse<java.io.InputStream> feed = sse(a, "placed", "feed-secret");
      assertEquals(200, feed.statusCode());
      feed.body().close();
    } finally {
      TestDialect.dropDatabases(cluster);
    }
  }

  @Test
  void sqliteAnswers409AndNoTokenMeansOff() throws Exception {
    Map<String, String> sqlite = new HashMap<>(Map.of("CAIRN_STORE_DIALECT", "sqlite", "CAIRN_ADMIN_TOKEN", TOKEN));
    try (TestRelay r = TestRelay.start(new JsonObject(), sqlite)) {
      HttpResponse<String> put = send(r, "PUT", "acme", "{}", TOKEN);
      assertEquals(409, put.statusCode(), put.body());
      assertTrue(put.body().contains("mysql"), put.body());
      assertEquals(401, send(r, "GET", null, null, null).statusCode(), "the token is checked before the dialect");
    }
    try (TestRelay r = TestRelay.start(new JsonObject(), Map.of("CAIRN_STORE_DIALECT", "sqlite"))) {
      assertEquals(404, send(r, "GET", null, null, TOKEN).statusCode(), "admin.token empty: the API is off");
    }
  }

  private static void assertBadRequest(TestRelay r, String body, String says) throws Exception {
    HttpResponse<String> res = send(r, "PUT", "acme", body, TOKEN);
    assertEquals(400, res.statusCode(), body + " -> " + res.body());
    assertTrue(res.body().contains(says), body + " -> " + res.body());
  }

  private static HttpResponse<String> send(TestRelay r, String method, String id, String body, String token)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(r.httpUrl() + "/admin/tenants" + (id == null ? "" : "/" + id)))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** {@code GET /t/<id>/v1/events}: answered as soon as the head arrives (a stream stays open). */
  private static HttpResponse<java.io.InputStream> sse(TestRelay r, String id, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(r.httpUrl() + "/t/" + id + "/v1/events"));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
  }

  private static HttpResponse<String> nip11(TestRelay r, String id) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(r.httpUrl() + "/t/" + id))
        .header("Accept", "application/nostr+json").build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Polls the tenant's NIP-11 document on {@code r} until {@code ok} holds, or fails after {@link #PICKUP_MS}. */
  private static void awaitStatus(TestRelay r, String id, Predicate<HttpResponse<String>> ok) throws Exception {
    long deadline = System.currentTimeMillis() + PICKUP_MS;
    HttpResponse<String> last;
    do {
      last = nip11(r, id);
      if (ok.test(last)) {
        return;
      }
      Thread.sleep(100);
    } while (System.currentTimeMillis() < deadline);
    throw new AssertionError("pod on port " + r.port() + " did not pick the change of tenant " + id + " up within "
        + PICKUP_MS + " ms; last answer " + last.statusCode() + " " + last.body());
  }
}
