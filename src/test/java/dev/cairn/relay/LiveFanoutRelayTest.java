package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.NostrEvent;
import io.nats.client.Connection;
import io.nats.client.Message;
import io.nats.client.Nats;
import io.nats.client.Subscription;
import io.nats.client.impl.Headers;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Live fan-out across pods through the whole relay: one Cairn with {@code live.enabled} on SQLite, and
 * this test as "the other pod" publishing on its NATS subjects (and, for a lost message, committing
 * into the shared store directly). Each scenario runs on a tenant of its own: the fake pod's seqs and
 * the relay's own would collide on one tenant, since here they do not share a counter.
 */
class LiveFanoutRelayTest {
  private static final String URL = "nats://127.0.0.1:4222";
  private static final String POD = "pod-relay";

  private String prefix;
  private Connection nats;
  private TestRelay relay;
  private final EventSigner remoteAuthor = EventSigner.random();

  @BeforeEach
  void setUp() throws Exception {
    try {
      nats = Nats.connect(URL);
    } catch (Exception e) {
      Assumptions.abort("NATS is not reachable at " + URL + ": " + e);
    }
    prefix = "cairnlive" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    JsonObject config = new JsonObject().put("tenants", new JsonArray()
        .add(new JsonObject().put("id", "order"))
        .add(new JsonObject().put("id", "gap"))
        .add(new JsonObject().put("id", "tail")));
    relay = TestRelay.start(config, Map.of("CAIRN_LIVE_ENABLED", "true", "CAIRN_NATS_SUBJECT_PREFIX", prefix,
        "CAIRN_NATS_URL", URL, "CAIRN_POD_ID", POD));
    awaitRelayOnTheBus();
  }

  @AfterEach
  void tearDown() throws Exception {
    if (relay != null) {
      relay.close();
    }
    if (nats != null) {
      nats.close();
    }
  }

  /**
   * Publishes local events until the relay's own publication shows up on NATS: its connection is up,
   * and its subscription (sent before any publication on that connection) is in place. Checks the
   * message format on the way.
   */
  private void awaitRelayOnTheBus() throws Exception {
    Subscription sub = nats.subscribe(prefix + "-live.>");
    nats.flush(Duration.ofSeconds(2));
    try (RelayClient c = relay.connect()) {
      for (int i = 0; i < 40; i++) {
        JsonObject e = Events.note(EventSigner.random(), "hello bus " + i, List.of());
        assertTrue(c.publishAndWait(e).getBoolean(2));
        Message m = sub.nextMessage(Duration.ofMillis(500));
        while (m != null && m.getHeaders().containsKey("Cairn-Beacon")) {
          m = sub.nextMessage(Duration.ofMillis(100)); // the relay's beacons of earlier writes
        }
        if (m != null) {
          assertEquals(prefix + "-live.default", m.getSubject());
          assertEquals(POD, m.getHeaders().getFirst("Cairn-Pod"));
          assertTrue(Long.parseLong(m.getHeaders().getFirst("Cairn-Seq")) > 0, "a stored event carries its seq");
          assertTrue(new JsonObject(new String(m.getData(), StandardCharsets.UTF_8)).getString("content")
              .startsWith("hello bus"), "the body is the event's JSON");
          sub.unsubscribe();
          return;
        }
      }
    }
    throw new AssertionError("the relay never published on NATS");
  }

  private NostrEvent remote(String content) {
    return remoteAuthor.sign(Events.now(), 1, List.of(), content);
  }

  /** "The other pod" publishes one event of {@code tenant} with {@code seq}. */
  private void publishRemote(String tenant, long seq, NostrEvent e) throws Exception {
    nats.publish(prefix + "-live." + tenant, new Headers().put("Cairn-Pod", "pod-remote").put("Cairn-Seq",
        Long.toString(seq)), e.json());
    nats.flush(Duration.ofSeconds(2));
  }

  /** The ids of the live EVENTs of {@code sub} up to and including {@code lastId}. */
  private static List<String> liveUntil(RelayClient c, String lastId) throws InterruptedException {
    List<String> ids = new ArrayList<>();
    while (true) {
      JsonArray f = c.await(x -> x.getString(0).equals("EVENT") || x.getString(0).equals("CLOSED"),
          Duration.ofSeconds(10));
      assertEquals("EVENT", f.getString(0), f.encode());
      String id = f.getJsonObject(2).getString("id");
      ids.add(id);
      if (id.equals(lastId)) {
        return ids;
      }
    }
  }

  private static void subscribe(RelayClient c) throws InterruptedException {
    c.req("s", new JsonObject().put("kinds", new JsonArray().add(1)));
    c.await(f -> f.getString(0).equals("EOSE"));
  }

  @Test
  void anotherPodsEventsOutOfOrderAndRepeatedReachASubscriberOnceInSeqOrder() throws Exception {
    try (RelayClient sub = relay.connect("/t/order")) {
      subscribe(sub);
      NostrEvent r1 = remote("seq 1");
      NostrEvent r2 = remote("seq 2");
      NostrEvent r3 = remote("seq 3");
      publishRemote("order", 2, r2); // ahead: held until 1 arrives
      publishRemote("order", 1, r1);
      publishRemote("order", 1, r1); // NATS or a pod may repeat: dropped
      publishRemote("order", 2, r2);
      publishRemote("order", 3, r3);
      assertEquals(List.of(r1.id(), r2.id(), r3.id()), liveUntil(sub, r3.id()));
      JsonArray extra = sub.poll(Duration.ofMillis(300));
      assertNull(extra, "nothing twice: " + (extra == null ? "" : extra.encode()));
      // an ephemeral event of another pod passes straight through
      NostrEvent eph = remoteAuthor.sign(Events.now(), 20001, List.of(), "ephemeral");
      sub.req("e", new JsonObject().put("kinds", new JsonArray().add(20001)));
      sub.await(f -> f.getString(0).equals("EOSE"));
      publishRemote("order", 0, eph);
      JsonArray f = sub.await(x -> x.getString(0).equals("EVENT"), Duration.ofSeconds(10));
      assertEquals(eph.id(), f.getJsonObject(2).getString("id"));
    }
    Matcher m = Pattern.compile("cairn_live_remote_total\\{tenant=\"order\"[^}]*} ([0-9.]+)").matcher(relay.metrics());
    assertTrue(m.find(), "cairn_live_remote_total{tenant=order} is exported");
    assertEquals(6.0, Double.parseDouble(m.group(1)), "every message of the other pod counted on arrival");
  }

  /**
   * Seqs 1 and 2 were committed by the other pod but their NATS messages were lost; seq 3 arrives. The
   * gap is read from the store after its bound and the subscriber gets 1, 2, 3 in order; seq 4 was
   * deleted before anyone read it: a gap the store cannot fill is skipped, and 5 still arrives.
   */
  @Test
  @org.junit.jupiter.api.Tag("sqlite-only") // commits "elsewhere" straight into the SQLite file
  void aGapIsReadFromTheStoreAndOneItCannotFillIsSkipped() throws Exception {
    try (RelayClient sub = relay.connect("/t/gap")) {
      subscribe(sub);
      NostrEvent g1 = remote("committed elsewhere, message lost 1");
      NostrEvent g2 = remote("committed elsewhere, message lost 2");
      NostrEvent g3 = remote("seq 3");
      commitElsewhere("gap", 1, g1);
      commitElsewhere("gap", 2, g2);
      long t0 = System.nanoTime();
      publishRemote("gap", 3, g3);
      assertEquals(List.of(g1.id(), g2.id(), g3.id()), liveUntil(sub, g3.id()));
      long waitedMs = (System.nanoTime() - t0) / 1_000_000;
      assertTrue(waitedMs >= 90, "the gap was given its bound before the catch-up read: " + waitedMs + " ms");

      NostrEvent g5 = remote("seq 5");
      publishRemote("gap", 5, g5);
      assertEquals(List.of(g5.id()), liveUntil(sub, g5.id()));
      assertNull(sub.poll(Duration.ofMillis(300)), "nothing twice");

      // a late copy of a caught-up seq changes nothing
      publishRemote("gap", 2, g2);
      NostrEvent g6 = remote("seq 6");
      publishRemote("gap", 6, g6);
      assertEquals(List.of(g6.id()), liveUntil(sub, g6.id()));
    }
  }

  /**
   * The other pod's last write of a burst was committed but its message lost, and nothing follows: its
   * beacon (how far its writes went) opens the gap, and the event is read from the store.
   */
  @Test
  @org.junit.jupiter.api.Tag("sqlite-only") // commits "elsewhere" straight into the SQLite file
  void aLostLastMessageIsCaughtUpThroughTheWritersBeacon() throws Exception {
    try (RelayClient sub = relay.connect("/t/tail")) {
      subscribe(sub);
      NostrEvent t1 = remote("the last write, message lost");
      commitElsewhere("tail", 1, t1);
      nats.publish(prefix + "-live.tail", new Headers().put("Cairn-Pod", "pod-remote").put("Cairn-Seq", "1")
          .put("Cairn-Beacon", "1"), new byte[0]);
      nats.flush(Duration.ofSeconds(2));
      assertEquals(List.of(t1.id()), liveUntil(sub, t1.id()));
      // a beacon of what was already released changes nothing
      nats.publish(prefix + "-live.tail", new Headers().put("Cairn-Pod", "pod-remote").put("Cairn-Seq", "1")
          .put("Cairn-Beacon", "1"), new byte[0]);
      assertNull(sub.poll(Duration.ofMillis(300)), "nothing twice");
    }
  }

  /** The relay beacons the tenants it wrote: the other pods learn how far its writes went. */
  @Test
  void theRelayBeaconsItsRecentWrites() throws Exception {
    Subscription beacons = nats.subscribe(prefix + "-live.default");
    nats.flush(Duration.ofSeconds(2));
    long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (System.nanoTime() < until) {
      Message m = beacons.nextMessage(Duration.ofMillis(500));
      if (m != null && m.getHeaders().containsKey("Cairn-Beacon")) {
        assertEquals(POD, m.getHeaders().getFirst("Cairn-Pod"));
        assertTrue(Long.parseLong(m.getHeaders().getFirst("Cairn-Seq")) >= 1);
        assertEquals(0, m.getData() == null ? 0 : m.getData().length);
        return;
      }
    }
    throw new AssertionError("no beacon from the relay within 5 s of its writes");
  }

  /** What a pod sharing the tenant DB does: a row committed with its seq (here straight into SQLite). */
  private void commitElsewhere(String tenant, long seq, NostrEvent e) throws Exception {
    String url = "jdbc:sqlite:" + relay.dataDir().resolve("tenants").resolve(tenant + ".db");
    try (java.sql.Connection c = DriverManager.getConnection(url)) {
      c.createStatement().execute("PRAGMA busy_timeout = 5000");
      try (PreparedStatement ps = c.prepareStatement(
          "INSERT INTO events(seq, id, pubkey, created_at, kind, d_tag, expiration, json) VALUES (?,?,?,?,?,NULL,NULL,?)")) {
        ps.setLong(1, seq);
        ps.setBytes(2, Hex.decode(e.id()));
        ps.setBytes(3, Hex.decode(e.pubkey()));
        ps.setLong(4, e.createdAt());
        ps.setInt(5, e.kind());
        ps.setBytes(6, e.json());
        assertEquals(1, ps.executeUpdate());
      }
    }
  }
}
