package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Two real pods sharing one MySQL meta DB and tenant DB (the CI MariaDB) and NATS: clients write on
 * both, and a subscriber on each pod sees every event once, in the same order on both pods (seq order,
 * which the pods' shared counter fixes). Skipped without MySQL or NATS.
 */
class LiveTwoPodsTest {
  private static final int PER_POD = 150;

  private static void assumeReachable(String host, int port, String what) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 1000);
    } catch (Exception e) {
      Assumptions.abort(what + " is not reachable at " + host + ":" + port);
    }
  }

  @Test
  void subscribersOnBothPodsSeeEveryEventOnceInTheSameOrder() throws Exception {
    assumeReachable("127.0.0.1", 4222, "NATS");
    assumeReachable("127.0.0.1", 3306, "MySQL");
    try (Connection probe = Nats.connect("nats://127.0.0.1:4222")) {
      probe.flush(Duration.ofSeconds(2));
    }
    // the cluster's meta DB is named after a directory that exists only as a name (TestDialect drops by it)
    Path cluster = Path.of(System.getProperty("java.io.tmpdir"), "cairn-two-pods-" + UUID.randomUUID());
    String prefix = "cairnpods" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    Map<String, String> common = Map.of("CAIRN_STORE_DIALECT", "mysql",
        "CAIRN_STORE_URL", TestDialect.server() + "/" + TestDialect.metaDb(cluster),
        "CAIRN_LIVE_ENABLED", "true", "CAIRN_NATS_SUBJECT_PREFIX", prefix);
    try (TestRelay a = TestRelay.start(new JsonObject(), with(common, "CAIRN_POD_ID", "pod-a"));
        TestRelay b = TestRelay.start(new JsonObject(), with(common, "CAIRN_POD_ID", "pod-b"));
        RelayClient subA = a.connect();
        RelayClient subB = b.connect();
        RelayClient pubA = a.connect();
        RelayClient pubB = b.connect()) {
      String tag = "pods" + System.nanoTime();
      JsonObject filter = new JsonObject().put("#t", new JsonArray().add(tag));
      subA.req("s", filter);
      subA.await(f -> f.getString(0).equals("EOSE"));
      subB.req("s", filter);
      subB.await(f -> f.getString(0).equals("EOSE"));

      EventSigner author = EventSigner.random();
      Set<String> published = new HashSet<>();
      for (int i = 0; i < PER_POD; i++) {
        for (RelayClient pub : List.of(pubA, pubB)) {
          JsonObject e = Events.signed(author, 1, Events.now(), List.of(List.of("t", tag)),
              (pub == pubA ? "a " : "b ") + i);
          published.add(e.getString("id"));
          pub.publish(e);
        }
      }
      for (RelayClient pub : List.of(pubA, pubB)) {
        for (int i = 0; i < PER_POD; i++) {
          JsonArray ok = pub.awaitType("OK");
          assertTrue(ok.getBoolean(2), ok.encode());
        }
      }
      List<String> seenA = live(subA, published.size());
      List<String> seenB = live(subB, published.size());
      assertEquals(published, new HashSet<>(seenA), "pod A's subscriber saw every event of both pods");
      assertEquals(published, new HashSet<>(seenB), "pod B's subscriber saw every event of both pods");
      assertEquals(seenA, seenB, "the same (seq) order on both pods");
      assertTrue(a.metrics().contains("cairn_live_remote_total{tenant=\"default\""), "A heard B over NATS");
      assertTrue(b.metrics().contains("cairn_live_remote_total{tenant=\"default\""), "B heard A over NATS");
      assertEquals(null, subA.poll(Duration.ofMillis(300)), "nothing twice on A");
      assertEquals(null, subB.poll(Duration.ofMillis(300)), "nothing twice on B");
    } finally {
      TestDialect.dropDatabases(cluster);
    }
  }

  private static Map<String, String> with(Map<String, String> base, String key, String value) {
    Map<String, String> m = new java.util.HashMap<>(base);
    m.put(key, value);
    return m;
  }

  /** {@code n} live EVENT ids of sub "s", in arrival order; no id twice. */
  private static List<String> live(RelayClient c, int n) throws InterruptedException {
    List<String> ids = new ArrayList<>();
    Set<String> unique = new HashSet<>();
    while (ids.size() < n) {
      JsonArray f = c.await(x -> x.getString(0).equals("EVENT") || x.getString(0).equals("CLOSED"),
          Duration.ofSeconds(20));
      assertEquals("EVENT", f.getString(0), f.encode());
      String id = f.getJsonObject(2).getString("id");
      assertTrue(unique.add(id), "delivered twice: " + id);
      ids.add(id);
    }
    return ids;
  }
}
