package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The policy rules end to end (issue 9), over real WebSocket connections: blacklist (pubkeys,
 * event ids, words, regexes), mute, allowlist, duplicate content, per-IP and per-pubkey rate limits
 * for EVENT, REQ and new connections, the free-write limiter, tenant blocks and the metric. Each
 * rate-limit test has its own tenant, since every client here shares the IP 127.0.0.1.
 */
class PolicyTest {
  private static final EventSigner BLOCKED = EventSigner.random();
  private static final EventSigner BLOCKED_IN_TENANT = EventSigner.random();
  private static final EventSigner MUTED = EventSigner.random();
  private static final EventSigner FRIEND = EventSigner.random();
  private static final EventSigner MEMBER = EventSigner.random();
  private static final EventSigner ALICE = EventSigner.random();
  private static final EventSigner BOB = EventSigner.random();
  private static JsonObject blockedEvent;
  private static TestRelay relay;

  @BeforeAll
  static void start() throws Exception {
    blockedEvent = Events.note(ALICE, "this exact event is blocked " + System.nanoTime(), List.of());
    JsonObject config = new JsonObject()
        .put("policy", new JsonObject()
            .put("block_pubkeys", new JsonArray().add(BLOCKED.pubkey()))
            .put("block_event_ids", new JsonArray().add(blockedEvent.getString("id")))
            .put("block_words", new JsonArray().add("spamword").add("Buy Followers"))
            .put("block_regexes", new JsonArray().add("(?i)bit\\.ly/[a-z0-9]+"))
            .put("mute_pubkeys", new JsonArray().add(MUTED.pubkey()))
            .put("duplicate_content", new JsonObject().put("window", "10m")))
        .put("tenants", new JsonArray()
            .add(tenant("global-dup", new JsonObject()
                .put("duplicate_content", new JsonObject().put("scope", "global"))
                .put("block_pubkeys", new JsonArray().add(BLOCKED_IN_TENANT.pubkey()))))
            .add(tenant("ip-events", rate("events_per_ip", 3)))
            .add(tenant("pk-events", rate("events_per_pubkey", 2)))
            .add(tenant("free-write", new JsonObject().put("writes_per_second", 0.01)))
            .add(tenant("ip-reqs", rate("reqs_per_ip", 3)))
            .add(tenant("ip-conns", rate("connections_per_ip", 2)))
            .add(tenant("members", new JsonObject().put("allow_pubkeys", new JsonArray().add(MEMBER.pubkey())))));
    relay = TestRelay.start(config, Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    if (relay != null) {
      relay.close();
    }
  }

  private static JsonObject tenant(String id, JsonObject policy) {
    return new JsonObject().put("id", id).put("policy", policy);
  }

  /** A rate that never refills during a test: {@code burst} tokens, then refusals. */
  private static JsonObject rate(String key, int burst) {
    return new JsonObject().put("rate", new JsonObject().put(key,
        new JsonObject().put("per_second", 0.0001).put("burst", burst)));
  }

  private static JsonObject note(EventSigner s, String content) {
    return Events.note(s, content + " " + System.nanoTime(), List.of());
  }

  private static void assertRefused(JsonArray ok, String prefix) {
    assertFalse(ok.getBoolean(2), ok.encode());
    assertTrue(ok.getString(3).startsWith(prefix), "expected " + prefix + " got " + ok.encode());
  }

  private static void assertAccepted(JsonArray ok) {
    assertTrue(ok.getBoolean(2), ok.encode());
  }

  private static boolean stored(RelayClient c, JsonObject e) throws InterruptedException {
    return !c.query("chk" + System.nanoTime() % 100000,
        new JsonObject().put("ids", new JsonArray().add(e.getString("id")))).isEmpty();
  }

  // ---- blacklist ----

  @Test
  void blockedPubkeyIsRefusedAndNothingIsStored() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject e = note(BLOCKED, "let me in");
      assertRefused(c.publishAndWait(e), "blocked:");
      assertFalse(stored(c, e));
      assertAccepted(c.publishAndWait(note(ALICE, "others are fine")));
    }
  }

  @Test
  void blockedEventIdIsRefused() throws Exception {
    try (RelayClient c = relay.connect()) {
      assertRefused(c.publishAndWait(blockedEvent), "blocked:");
      assertFalse(stored(c, blockedEvent));
    }
  }

  @Test
  void blockedWordsAreWholeWordsAnyCase() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject spam = note(ALICE, "Great deal: SpamWord!");
      assertRefused(c.publishAndWait(spam), "blocked:");
      assertFalse(stored(c, spam));
      assertRefused(c.publishAndWait(note(ALICE, "want to buy   followers?")), "blocked:");
      assertAccepted(c.publishAndWait(note(ALICE, "spamwords are another word")));
    }
  }

  @Test
  void blockedRegex() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject link = note(ALICE, "click BIT.LY/x9z now");
      assertRefused(c.publishAndWait(link), "blocked:");
      assertFalse(stored(c, link));
      assertAccepted(c.publishAndWait(note(ALICE, "bit.ly is a link shortener")));
    }
  }

  @Test
  void tenantsInheritTopLevelBlocksAndAddTheirOwn() throws Exception {
    try (RelayClient t = relay.connect("/t/global-dup"); RelayClient d = relay.connect()) {
      assertRefused(t.publishAndWait(note(BLOCKED, "top-level block")), "blocked:");
      assertRefused(t.publishAndWait(note(BLOCKED_IN_TENANT, "tenant block")), "blocked:");
      assertAccepted(d.publishAndWait(note(BLOCKED_IN_TENANT, "the default tenant does not block me")));
    }
  }

  // ---- mute ----

  @Test
  void mutedEventIsAnsweredOkButNeitherStoredNorDispatched() throws Exception {
    try (RelayClient sub = relay.connect(); RelayClient pub = relay.connect()) {
      JsonObject filter = new JsonObject().put("authors", new JsonArray().add(MUTED.pubkey()).add(FRIEND.pubkey()))
          .put("limit", 0);
      assertTrue(sub.query("live", filter).isEmpty());

      JsonObject muted = note(MUTED, "nobody will see this");
      JsonArray ok = pub.publishAndWait(muted);
      assertTrue(ok.getBoolean(2), "a muted author is answered as if accepted: " + ok.encode());
      assertEquals("", ok.getString(3));

      // Had the muted event been dispatched, it would reach the subscriber before this one.
      JsonObject marker = note(FRIEND, "after the muted one");
      assertAccepted(pub.publishAndWait(marker));
      JsonArray first = sub.await(f -> f.getString(0).equals("EVENT") && "live".equals(f.getString(1)));
      assertEquals(marker.getString("id"), first.getJsonObject(2).getString("id"), "the muted event was dispatched");

      assertFalse(stored(pub, muted), "the muted event was stored");
      assertTrue(stored(pub, marker));
    }
  }

  // ---- allowlist ----

  @Test
  void allowlistOfATenant() throws Exception {
    try (RelayClient c = relay.connect("/t/members"); RelayClient d = relay.connect()) {
      assertAccepted(c.publishAndWait(note(MEMBER, "a member")));
      JsonObject stranger = note(ALICE, "not a member");
      assertRefused(c.publishAndWait(stranger), "restricted:");
      assertFalse(stored(c, stranger));
      assertAccepted(d.publishAndWait(note(ALICE, "the default tenant is open")));
    }
  }

  @Test
  void restrictedWritesWithAllowedPubkeysKeepsWorking() throws Exception {
    JsonObject config = new JsonObject()
        .put("limits", new JsonObject().put("restricted_writes", true))
        .put("tenants", new JsonArray().add(new JsonObject().put("id", "default")
            .put("allowed_pubkeys", new JsonArray().add(MEMBER.pubkey()))));
    try (TestRelay r = TestRelay.start(config, Map.of()); RelayClient c = r.connect()) {
      assertAccepted(c.publishAndWait(note(MEMBER, "a member")));
      assertRefused(c.publishAndWait(note(ALICE, "not a member")), "restricted:");
    }
  }

  // ---- spam: duplicates ----

  @Test
  void duplicateContentFromTheSameAuthor() throws Exception {
    try (RelayClient c = relay.connect()) {
      String text = "Same old message " + System.nanoTime();
      JsonObject first = Events.note(ALICE, text, List.of());
      assertAccepted(c.publishAndWait(first));
      JsonObject again = Events.note(ALICE, "  " + text.toUpperCase() + " ", List.of(List.of("t", "new")));
      assertRefused(c.publishAndWait(again), "blocked: duplicate content");
      assertFalse(stored(c, again));

      JsonArray retry = c.publishAndWait(first);
      assertTrue(retry.getBoolean(2) && retry.getString(3).startsWith("duplicate:"),
          "the same event again is storage's duplicate, not duplicate content: " + retry.encode());
      assertAccepted(c.publishAndWait(Events.note(BOB, text, List.of())));
    }
  }

  @Test
  void duplicateContentFromAnyoneInATenantWithGlobalScope() throws Exception {
    try (RelayClient c = relay.connect("/t/global-dup")) {
      String text = "copy pasta " + System.nanoTime();
      assertAccepted(c.publishAndWait(Events.note(ALICE, text, List.of())));
      assertRefused(c.publishAndWait(Events.note(BOB, text, List.of())), "blocked: duplicate content");
    }
  }

  // ---- spam: rate limits ----

  @Test
  void eventsPerIp() throws Exception {
    try (RelayClient a = relay.connect("/t/ip-events"); RelayClient b = relay.connect("/t/ip-events")) {
      assertAccepted(a.publishAndWait(note(ALICE, "1")));
      assertAccepted(b.publishAndWait(note(BOB, "2")));
      assertAccepted(a.publishAndWait(note(FRIEND, "3")));
      JsonObject fourth = note(MEMBER, "4");
      assertRefused(b.publishAndWait(fourth), "rate-limited:");
      assertFalse(stored(b, fourth));
    }
  }

  @Test
  void eventsPerPubkey() throws Exception {
    try (RelayClient c = relay.connect("/t/pk-events")) {
      assertAccepted(c.publishAndWait(note(ALICE, "1")));
      assertAccepted(c.publishAndWait(note(ALICE, "2")));
      assertRefused(c.publishAndWait(note(ALICE, "3")), "rate-limited:");
      assertAccepted(c.publishAndWait(note(BOB, "someone else")));
    }
  }

  @Test
  void freeWriteLimiter() throws Exception {
    try (RelayClient c = relay.connect("/t/free-write")) {
      assertAccepted(c.publishAndWait(note(ALICE, "1")));
      assertRefused(c.publishAndWait(note(ALICE, "2")), "rate-limited:");
      assertAccepted(c.publishAndWait(note(BOB, "someone else")));
    }
  }

  @Test
  void reqsPerIp() throws Exception {
    try (RelayClient a = relay.connect("/t/ip-reqs"); RelayClient b = relay.connect("/t/ip-reqs")) {
      JsonObject none = new JsonObject().put("limit", 0);
      assertTrue(a.query("r1", none).isEmpty());
      assertTrue(b.query("r2", none).isEmpty());
      assertTrue(a.query("r3", none).isEmpty());
      b.req("r4", none);
      JsonArray f = b.await(x -> "r4".equals(x.getValue(1)));
      assertEquals("CLOSED", f.getString(0), f.encode());
      assertTrue(f.getString(2).startsWith("rate-limited:"), f.encode());
    }
  }

  @Test
  void connectionsPerIpAreClosedWith1008() throws Exception {
    try (RelayClient a = relay.connect("/t/ip-conns"); RelayClient b = relay.connect("/t/ip-conns")) {
      JsonObject none = new JsonObject().put("limit", 0);
      assertTrue(a.query("alive", none).isEmpty());
      assertTrue(b.query("alive", none).isEmpty());
      Refused third = connectAndAwaitClose("/t/ip-conns");
      assertEquals(1008, third.code(), "close code");
      assertTrue(third.reason().startsWith("rate-limited:"), third.reason());
      assertNotNull(third.notice(), "a NOTICE before the close");
      assertTrue(third.notice().getString(1).startsWith("rate-limited:"), third.notice().encode());
      assertTrue(a.query("still", none).isEmpty(), "the admitted connections are untouched");
    }
  }

  private record Refused(int code, String reason, JsonArray notice) {}

  /**
   * Handlers are set on the client's event loop as the upgrade completes, so no early frame is missed:
   * the connect starts on that loop, so the upgrade cannot complete before the callbacks are there
   * (started from the test's thread, it once did, and the refusal's close went unseen).
   */
  private static Refused connectAndAwaitClose(String path) throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      LinkedBlockingQueue<JsonArray> frames = new LinkedBlockingQueue<>();
      CompletableFuture<Refused> closed = new CompletableFuture<>();
      WebSocketClient client = vertx.createWebSocketClient();
      vertx.getOrCreateContext().runOnContext(start -> client
          .connect(new WebSocketConnectOptions().setHost("127.0.0.1").setPort(relay.port()).setURI(path))
          .onSuccess(ws -> {
            ws.textMessageHandler(t -> frames.add(new JsonArray(t)));
            ws.closeHandler(v -> closed.complete(new Refused(ws.closeStatusCode(), ws.closeReason(), frames.poll())));
          })
          .onFailure(closed::completeExceptionally));
      Refused refused = closed.get(10, TimeUnit.SECONDS);
      client.close(); // held until here: Vert.x 5 closes an unreachable client's sockets
      return refused;
    } finally {
      vertx.close();
    }
  }

  // ---- metrics ----

  @Test
  void rejectionsAreCountedByRule() throws Exception {
    try (RelayClient c = relay.connect()) {
      assertRefused(c.publishAndWait(note(BLOCKED, "count me")), "blocked:");
    }
    HttpResponse<String> r = TestRelay.http().send(HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    String line = r.body().lines()
        .filter(l -> l.startsWith("cairn_policy_rejected_total{") && l.contains("rule=\"blocked_pubkey\"")
            && l.contains("tenant=\"default\""))
        .findFirst().orElseThrow(() -> new AssertionError("no cairn_policy_rejected_total for blocked_pubkey"));
    assertTrue(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)) >= 1, line);
  }
}
