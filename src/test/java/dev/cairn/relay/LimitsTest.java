package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The relay limits of CONTRACT section 3, set small through {@code CAIRN_LIMITS_*} env overrides. */
class LimitsTest {
  private static final int MAX_SUBSCRIPTIONS = 3;
  private static final int MAX_FILTERS = 2;
  private static final int MAX_SUBID_LENGTH = 10;
  private static final int MAX_LIMIT = 5;
  private static final int DEFAULT_LIMIT = 3;
  private static final int MAX_EVENT_TAGS = 4;
  private static final int MAX_CONTENT_LENGTH = 100;
  private static final int MIN_POW = 8;

  private static TestRelay relay;
  private static final EventSigner SIGNER = EventSigner.random();
  /** The author of {@link #EIGHT} only, so other tests' events never mix into those queries. */
  private static final EventSigner HISTORIAN = EventSigner.random();
  /** Eight events of one author, oldest first, all accepted. */
  private static final List<JsonObject> EIGHT = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    relay = TestRelay.start(new JsonObject(), Map.of(
        "CAIRN_LIMITS_MAX_SUBSCRIPTIONS", String.valueOf(MAX_SUBSCRIPTIONS),
        "CAIRN_LIMITS_MAX_FILTERS", String.valueOf(MAX_FILTERS),
        "CAIRN_LIMITS_MAX_SUBID_LENGTH", String.valueOf(MAX_SUBID_LENGTH),
        "CAIRN_LIMITS_MAX_LIMIT", String.valueOf(MAX_LIMIT),
        "CAIRN_LIMITS_DEFAULT_LIMIT", String.valueOf(DEFAULT_LIMIT),
        "CAIRN_LIMITS_MAX_EVENT_TAGS", String.valueOf(MAX_EVENT_TAGS),
        "CAIRN_LIMITS_MAX_CONTENT_LENGTH", String.valueOf(MAX_CONTENT_LENGTH),
        "CAIRN_LIMITS_MIN_POW_DIFFICULTY", String.valueOf(MIN_POW)));
    try (RelayClient c = relay.connect()) {
      long base = Events.now() - 1000;
      for (int i = 0; i < 8; i++) {
        JsonObject e = mined(HISTORIAN, base + i * 10L, List.of(), "event " + i);
        JsonArray ok = c.publishAndWait(e);
        assertTrue(ok.getBoolean(2), "setup publish: " + ok.encode());
        EIGHT.add(e);
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (relay != null) {
      relay.close();
    }
  }

  // ---- helpers ----

  static int leadingZeroBits(String hex) {
    int bits = 0;
    for (char ch : hex.toCharArray()) {
      int n = Character.digit(ch, 16);
      if (n == 0) {
        bits += 4;
      } else {
        return bits + Integer.numberOfLeadingZeros(n) - 28;
      }
    }
    return bits;
  }

  /** NIP-13: an event whose id has at least {@link #MIN_POW} leading zero bits (nonce tag added). */
  static JsonObject mined(EventSigner signer, long createdAt, List<List<String>> tags, String content) {
    for (long nonce = 0; ; nonce++) {
      List<List<String>> t = new ArrayList<>(tags);
      t.add(List.of("nonce", Long.toString(nonce), Integer.toString(MIN_POW)));
      JsonObject e = Events.signed(signer, 1, createdAt, t, content);
      if (leadingZeroBits(e.getString("id")) >= MIN_POW) {
        return e;
      }
    }
  }

  private static JsonObject authorFilter() {
    return new JsonObject().put("authors", new JsonArray().add(HISTORIAN.pubkey()));
  }

  private static List<String> ids(List<JsonObject> events) {
    return events.stream().map(e -> e.getString("id")).toList();
  }

  /** The newest {@code n} of {@link #EIGHT}, newest first. */
  private static List<String> newest(int n) {
    List<String> out = new ArrayList<>();
    for (int i = EIGHT.size() - 1; i >= EIGHT.size() - n; i--) {
      out.add(EIGHT.get(i).getString("id"));
    }
    return out;
  }

  private static JsonArray closed(RelayClient c, String subId) throws InterruptedException {
    JsonArray f = c.await(x -> subId.equals(x.getValue(1))
        && (x.getString(0).equals("CLOSED") || x.getString(0).equals("EOSE")));
    assertEquals("CLOSED", f.getString(0), "expected the REQ to be refused: " + f.encode());
    return f;
  }

  // ---- subscriptions ----

  @Test
  void maxSubscriptions() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject none = new JsonObject().put("limit", 0);
      for (int i = 1; i <= MAX_SUBSCRIPTIONS; i++) {
        assertTrue(c.query("s" + i, none).isEmpty());
      }
      // Replacing an existing sub id does not count against the limit.
      assertTrue(c.query("s1", none).isEmpty());
      assertTrue(c.query("s" + MAX_SUBSCRIPTIONS, none).isEmpty());

      c.req("extra", none);
      JsonArray refused = closed(c, "extra");
      String msg = refused.getString(2);
      assertTrue(msg.contains("subscriptions") && msg.contains("max " + MAX_SUBSCRIPTIONS),
          "a clear reason naming the limit: " + msg);
      assertTrue(msg.matches("^[a-z-]+: .*"), "a NIP-01 prefixed reason: " + msg);

      // Closing one frees a slot.
      c.send("[\"CLOSE\",\"s2\"]");
      assertTrue(c.query("extra", none).isEmpty());
    }
  }

  @Test
  void maxFilters() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject f = new JsonObject().put("limit", 0);
      c.req("three", f, f, f);
      String msg = closed(c, "three").getString(2);
      assertTrue(msg.startsWith("invalid:") && msg.contains("too many filters"), msg);
      assertTrue(c.query("two", f, f).isEmpty(), "max_filters filters are fine");
    }
  }

  @Test
  void maxSubidLength() throws Exception {
    try (RelayClient c = relay.connect()) {
      String tooLong = "a".repeat(MAX_SUBID_LENGTH + 1);
      c.req(tooLong, new JsonObject().put("limit", 0));
      String msg = closed(c, tooLong).getString(2);
      assertTrue(msg.startsWith("invalid:") && msg.contains("longer than " + MAX_SUBID_LENGTH), msg);
      assertTrue(c.query("b".repeat(MAX_SUBID_LENGTH), new JsonObject().put("limit", 0)).isEmpty());
    }
  }

  // ---- result sizes ----

  @Test
  void maxLimitCapsResults() throws Exception {
    try (RelayClient c = relay.connect()) {
      List<JsonObject> got = c.query("big", authorFilter().put("limit", 100));
      assertEquals(newest(MAX_LIMIT), ids(got), "limit above max_limit is capped to the newest max_limit");
    }
  }

  @Test
  void defaultLimitAppliesWithoutLimit() throws Exception {
    try (RelayClient c = relay.connect()) {
      List<JsonObject> got = c.query("dflt", authorFilter());
      assertEquals(newest(DEFAULT_LIMIT), ids(got));
      // An explicit smaller-than-max limit is honoured as is.
      assertEquals(newest(4), ids(c.query("four", authorFilter().put("limit", 4))));
    }
  }

  @Test
  void limitZeroReturnsJustEose() throws Exception {
    try (RelayClient c = relay.connect()) {
      c.req("zero", authorFilter().put("limit", 0));
      JsonArray first = c.await(f -> "zero".equals(f.getValue(1)));
      assertEquals("EOSE", first.getString(0), "limit 0: no stored events, just EOSE, got " + first.encode());
    }
  }

  // ---- event size limits ----

  @Test
  void maxEventTags() throws Exception {
    try (RelayClient c = relay.connect()) {
      List<List<String>> tags = new ArrayList<>();
      for (int i = 0; i < MAX_EVENT_TAGS; i++) { // + the nonce tag = one too many
        tags.add(List.of("t", "tag" + i));
      }
      JsonObject e = mined(SIGNER, Events.now(), tags, "many tags");
      JsonArray ok = c.publishAndWait(e);
      assertFalse(ok.getBoolean(2), ok.encode());
      assertTrue(ok.getString(3).startsWith("invalid:") && ok.getString(3).contains("tags"), ok.encode());
      assertTrue(c.query("t", new JsonObject().put("ids", new JsonArray().add(e.getString("id")))).isEmpty());

      JsonObject fits = mined(SIGNER, Events.now(), tags.subList(0, MAX_EVENT_TAGS - 1), "just enough tags");
      assertTrue(c.publishAndWait(fits).getBoolean(2));
    }
  }

  @Test
  void maxContentLength() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject e = mined(SIGNER, Events.now(), List.of(), "x".repeat(MAX_CONTENT_LENGTH + 1));
      JsonArray ok = c.publishAndWait(e);
      assertFalse(ok.getBoolean(2), ok.encode());
      assertTrue(ok.getString(3).startsWith("invalid:") && ok.getString(3).contains("content"), ok.encode());
      JsonObject fits = mined(SIGNER, Events.now(), List.of(), "y".repeat(MAX_CONTENT_LENGTH));
      assertTrue(c.publishAndWait(fits).getBoolean(2));
    }
  }

  // ---- proof of work ----

  @Test
  void minPowDifficulty() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject weak;
      do {
        weak = Events.note(SIGNER, "no work " + System.nanoTime(), List.of());
      } while (leadingZeroBits(weak.getString("id")) >= MIN_POW);
      JsonArray ok = c.publishAndWait(weak);
      assertFalse(ok.getBoolean(2), ok.encode());
      assertTrue(ok.getString(3).startsWith("pow:"), ok.encode());
      assertTrue(c.query("w", new JsonObject().put("ids", new JsonArray().add(weak.getString("id")))).isEmpty());

      JsonObject strong = mined(SIGNER, Events.now(), List.of(), "worked for it");
      JsonArray ok2 = c.publishAndWait(strong);
      assertTrue(ok2.getBoolean(2), ok2.encode());
      assertEquals(1, c.query("s", new JsonObject().put("ids", new JsonArray().add(strong.getString("id")))).size());
    }
  }

  // ---- NIP-11 ----

  @Test
  void nip11ShowsConfiguredLimits() throws Exception {
    HttpResponse<String> r = TestRelay.http().send(
        HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/")).header("Accept", "application/nostr+json").build(),
        HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode());
    JsonObject lim = new JsonObject(r.body()).getJsonObject("limitation");
    assertEquals(MAX_SUBSCRIPTIONS, lim.getInteger("max_subscriptions"));
    assertEquals(MAX_FILTERS, lim.getInteger("max_filters"));
    assertEquals(MAX_SUBID_LENGTH, lim.getInteger("max_subid_length"));
    assertEquals(MAX_LIMIT, lim.getInteger("max_limit"));
    assertEquals(DEFAULT_LIMIT, lim.getInteger("default_limit"));
    assertEquals(MAX_EVENT_TAGS, lim.getInteger("max_event_tags"));
    assertEquals(MAX_CONTENT_LENGTH, lim.getInteger("max_content_length"));
    assertEquals(MIN_POW, lim.getInteger("min_pow_difficulty"));
    assertEquals(131072, lim.getInteger("max_message_length"));
    assertEquals(false, lim.getBoolean("auth_required"));
    assertEquals(false, lim.getBoolean("restricted_writes"));
    assertEquals(0, lim.getInteger("created_at_lower_limit"));
    assertEquals(900, lim.getInteger("created_at_upper_limit"));
  }
}
