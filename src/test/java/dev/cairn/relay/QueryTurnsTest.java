package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One client's backlog of queries (REQ, COUNT) costs the other clients at most a turn each:
 * {@code limits.queries_per_connection} of a connection's queries go to the store at once, the rest wait
 * on the connection, and the store takes the connections' queries in turns (dev.cairn.store.ReadTurns).
 */
class QueryTurnsTest {
  private static final int STORED = 1_000;
  private static final Pattern ANSWERED = Pattern.compile("cairn_req_history_seconds_count ([0-9.E]+)");
  private static final Pattern DROPPED = Pattern.compile("cairn_queries_dropped_total\\{tenant=\"[^\"]*\"} ([0-9.E]+)");
  private static final EventSigner AUTHOR = EventSigner.random();
  private static TestRelay relay;

  @BeforeAll
  static void start() throws Exception {
    relay = TestRelay.start();
    try (RelayClient c = relay.connect()) {
      for (int i = 0; i < STORED; i++) {
        c.publish(Events.note(AUTHOR, "note " + i + " " + "y".repeat(200), List.of()));
      }
      for (int i = 0; i < STORED; i++) {
        assertTrue(c.awaitType("OK").getBoolean(2), "setup publish");
      }
    }
  }

  @AfterAll
  static void stop() throws Exception {
    if (relay != null) {
      relay.close();
    }
  }

  @Test
  void aClientsBacklogOfReqsDoesNotHoldAnotherClientsReq() throws Exception {
    JsonObject all = new JsonObject().put("authors", List.of(AUTHOR.pubkey())).put("limit", STORED);
    long before = answered();
    // The hog sends 100 REQs for every stored event (about 40 MB of answers, which it reads).
    try (RelayClient hog = relay.connect(); RelayClient other = relay.connect()) {
      for (int i = 0; i < 100; i++) {
        hog.req("h" + i, all);
      }
      List<JsonObject> mine = other.query("mine", new JsonObject().put("authors", List.of(AUTHOR.pubkey()))
          .put("limit", 1));
      long hogsAnswered = answered() - before - 1;
      assertEquals(1, mine.size());
      // In arrival order the other client's REQ waited for all 100 of the hog's; in turns, for a few.
      assertTrue(hogsAnswered < 50, "the other client's REQ was answered after " + hogsAnswered
          + " of the hog's 100 (each of its own turns: at most a few)");
      // and every one of the hog's REQs is answered in full, the waiting ones too
      Map<String, Integer> events = new HashMap<>();
      int eose = 0;
      while (eose < 100) {
        JsonArray f = hog.await(x -> true, Duration.ofSeconds(30));
        if ("EOSE".equals(f.getString(0))) {
          eose++;
          assertEquals(STORED, events.getOrDefault(f.getString(1), 0), "all events before the EOSE of " + f.getString(1));
        } else {
          assertEquals("EVENT", f.getString(0), f.encode());
          events.merge(f.getString(1), 1, Integer::sum);
        }
      }
      assertEquals(100, events.size());
    }
  }

  @Test
  void aFloodOfCountsIsAnsweredOncePerCount() throws Exception {
    try (RelayClient c = relay.connect()) {
      int sent = 300; // 8 on their way, 100 waiting freely, the rest holding their frames' credit
      for (int i = 0; i < sent; i++) {
        c.send(new JsonArray().add("COUNT").add("c" + i).add(new JsonObject().put("authors", List.of(AUTHOR.pubkey()))));
      }
      Map<String, Long> counted = new HashMap<>();
      for (int i = 0; i < sent; i++) {
        JsonArray f = c.awaitType("COUNT");
        counted.put(f.getString(1), f.getJsonObject(2).getLong("count"));
      }
      assertEquals(sent, counted.size(), "every COUNT answered");
      assertTrue(counted.values().stream().allMatch(n -> n == STORED), counted.toString());
      assertEquals(null, c.poll(Duration.ofMillis(200)), "one answer per COUNT");
    }
  }

  @Test
  void aReqReplacesItsWaitingNamesake() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject one = new JsonObject().put("authors", List.of(AUTHOR.pubkey())).put("limit", 1);
      JsonObject two = new JsonObject().put("authors", List.of(AUTHOR.pubkey())).put("limit", 2);
      for (int i = 0; i < 40; i++) {
        c.req("r" + i, one);
      }
      c.req("r39", two); // r39 waits behind the other 31: the newer REQ takes its place
      c.req("last", one);
      Map<String, Integer> eose = new HashMap<>();
      int events39 = 0;
      // answers come in the order their reads end; after all 41, a second answer for r39 would follow
      JsonArray f;
      while ((f = eose.size() < 41 ? c.await(x -> true) : c.poll(Duration.ofMillis(300))) != null) {
        if ("EOSE".equals(f.getString(0))) {
          eose.merge(f.getString(1), 1, Integer::sum);
        } else if ("EVENT".equals(f.getString(0)) && "r39".equals(f.getString(1))) {
          events39++;
        }
      }
      assertEquals(41, eose.size(), "every sub id got its EOSE: " + eose.keySet());
      assertEquals(1, eose.get("r39"), "r39 was answered once");
      assertEquals(2, events39, "with the newer REQ's filter");
    }
  }

  @Test
  void aClientThatDoesNotReadGetsNoMoreQueriesRunUntilItReads() throws Exception {
    int sent = 100; // about 45 MB of answers, all of which used to be read and queued for it at once
    long before = answered();
    try (RawSocket c = RawSocket.webSocket(relay.port(), "/")) { // a 4 KB receive window, and it reads nothing yet
      for (int i = 0; i < sent; i++) {
        c.sendText(new JsonArray().add("REQ").add("s" + i)
            .add(new JsonObject().put("authors", List.of(AUTHOR.pubkey())).put("limit", STORED)).encode());
      }
      long run = settled();
      // ~450 KB each: the answers the kernel's buffers took (up to ~4 MB) and those on their way when it
      // stalled; 100 of 100 without the stall
      assertTrue(run - before < 60, (run - before) + " of " + sent + " queries were run for a client that read"
          + " none of their answers (at most the few on their way when it stalled should be)");
      // once it reads, every query is run and answered in full, in order per sub id
      Map<String, Integer> events = new HashMap<>();
      int eose = 0;
      while (eose < sent) {
        String text = c.readTextMessage(30_000);
        assertTrue(text != null, "closed after " + eose + " EOSEs");
        JsonArray f = new JsonArray(text);
        if ("EOSE".equals(f.getString(0))) {
          eose++;
          assertEquals(STORED, events.getOrDefault(f.getString(1), 0), "all events before the EOSE of " + f.getString(1));
        } else {
          assertEquals("EVENT", f.getString(0), text);
          events.merge(f.getString(1), 1, Integer::sum);
        }
      }
      assertEquals(sent, events.size());
    }
  }

  @Test
  void theWaitingQueriesOfAClosedConnectionAreNotRun() throws Exception {
    JsonObject all = new JsonObject().put("authors", List.of(AUTHOR.pubkey())).put("limit", STORED);
    long before = counter(DROPPED);
    // 20 clients ask for 8 answers of every stored event each and leave at once: 160 reads, a few at a time
    // (A polite close would wait for the relay's close frame, behind the answers: they would all be read.)
    List<RawSocket> clients = new java.util.ArrayList<>();
    for (int c = 0; c < 20; c++) {
      clients.add(RawSocket.webSocket(relay.port(), "/"));
    }
    JsonArray req = new JsonArray().add("REQ").add("g");
    for (int f = 0; f < 10; f++) { // ten filters of every stored event: a read of some tens of ms
      req.add(all.copy().put("limit", STORED - f));
    }
    for (RawSocket gone : clients) {
      for (int i = 0; i < 8; i++) {
        req.set(1, "g" + i);
        gone.sendText(req.encode());
      }
    }
    // once their REQs have reached the store (a connection closed before that has none run at all, its REQs
    // ignored as they come back from its conn-worker), while most still wait for their turn
    Thread.sleep(150);
    for (RawSocket gone : clients) {
      gone.close(); // with answers unread in its receive buffer: a reset
    }
    settled();
    long dropped = counter(DROPPED) - before;
    // at most a few run at once (twice the reader threads); 144-152 of the 160 were dropped here
    assertTrue(dropped >= 16, dropped + " of the 160 reads were dropped: those still waiting when their connections"
        + " closed are not run");
    try (RelayClient other = relay.connect()) {
      assertEquals(1, other.query("after", new JsonObject().put("authors", List.of(AUTHOR.pubkey())).put("limit", 1)).size(),
          "the store answers the next client");
    }
  }

  /** The answered queries once no more are answered for half a second. */
  private static long settled() throws InterruptedException {
    long last = answered();
    for (int still = 0; still < 5; ) {
      Thread.sleep(100);
      long now = answered();
      still = now == last ? still + 1 : 0;
      last = now;
    }
    return last;
  }

  private static long answered() {
    return counter(ANSWERED);
  }

  private static long counter(Pattern p) {
    Matcher m = p.matcher(relay.metrics());
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }
}
