package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code limits.max_outbound_messages}: when more messages wait for a listener's clients than the bound,
 * the listener stops reading client input (so no new events fan out) until they drain; nothing queued
 * is dropped and the subscriber that was behind is not closed for it.
 */
class OutboundBudgetTest {
  private static final EventSigner AUTHOR = EventSigner.random();
  private static final String BIG = "x".repeat(13_000);
  private static final Pattern QUEUED = Pattern.compile("cairn_outbound_messages_queued\\{listener=\"0\"} ([0-9.E]+)");
  private static final int EVENTS = 800;
  private static final int BOUND = 100;

  @Test
  void overTheBoundClientInputWaitsUntilTheQueuesDrainAndNothingIsLost() throws Exception {
    // A small tree credit keeps the write path from taking in hundreds of EVENTs ahead of their fan-out
    // (at 1,024 it holds up to 4,096): what the pause holds back is then what the publisher sends next.
    JsonObject limits = new JsonObject().put("limits", new JsonObject()
        .put("max_outbound_messages", BOUND).put("slow_consumer_timeout", "60s")
        .put("max_outbound_bytes", 64L << 20).put("max_message_length", 65536))
        .put("tree", new JsonObject().put("channel_capacity", 16));
    try (TestRelay relay = TestRelay.start(limits, Map.of());
        RawSocket sub = RawSocket.webSocket(relay.port(), "/");
        RelayClient pub = relay.connect()) {
      sub.sendText("[\"REQ\",\"s\",{\"kinds\":[1]}]");
      assertEquals("EOSE", new JsonArray(sub.readTextMessage(10_000)).getString(0));
      // The subscriber stops reading: ~4 MB fill the kernel's buffers (~300 of these events), then the
      // relay queues what follows for it, up to the bound.
      List<String> sent = new ArrayList<>();
      for (int i = 0; i < EVENTS; i++) {
        JsonObject e = Events.note(AUTHOR, i + " " + BIG, List.of());
        sent.add(e.getString("id"));
        pub.publish(e);
      }
      awaitQueuedOver(relay, BOUND, 30_000);
      int oks = countOks(pub, Duration.ofSeconds(1)); // until none came for a second: the pause holds
      assertTrue(oks < EVENTS, "the publisher's input waits while the subscriber is behind (" + oks + " OKs)");

      List<String> got = new ArrayList<>();
      while (got.size() < EVENTS) {
        String m = sub.readTextMessage(30_000);
        assertTrue(m != null, "the subscriber was not closed (" + got.size() + " events read)");
        JsonArray frame = new JsonArray(m);
        assertEquals("EVENT", frame.getString(0), m.length() > 200 ? m.substring(0, 200) : m);
        got.add(frame.getJsonObject(2).getString("id"));
      }
      // signature checks run in parallel, so one connection's events may be stored out of their order
      assertEquals(EVENTS, new HashSet<>(got).size(), "no event was delivered twice");
      assertTrue(new HashSet<>(got).equals(new HashSet<>(sent)), "every event reached the subscriber");
      for (int i = oks; i < EVENTS; i++) {
        assertTrue(pub.awaitType("OK").getBoolean(2), "every EVENT was accepted once input resumed");
      }
      assertFalse(Pattern.compile("cairn_slow_consumer_closed_total\\{kind=\"ws\"} [1-9]").matcher(relay.metrics()).find(),
          "nobody was closed for the relay's own backlog");
    }
  }

  private static void awaitQueuedOver(TestRelay relay, long bound, long millis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    double last = -1;
    while (System.currentTimeMillis() < deadline) {
      Matcher m = QUEUED.matcher(relay.metrics());
      if (m.find() && (last = Double.parseDouble(m.group(1))) > bound) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("the queued messages never passed " + bound + " (last " + last + ")");
  }

  /** OKs received until none came for {@code quiet}; each must be true. */
  private static int countOks(RelayClient pub, Duration quiet) throws InterruptedException {
    int n = 0;
    JsonArray f;
    while ((f = pub.poll(quiet)) != null) {
      if (f.getString(0).equals("OK")) {
        assertTrue(f.getBoolean(2), f.encode());
        n++;
      }
    }
    return n;
  }
}
