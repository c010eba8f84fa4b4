package dev.cairn.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.feed.SseClient;
import dev.cairn.nostr.EventSigner;
import dev.cairn.relay.Events;
import dev.cairn.relay.RelayClient;
import dev.cairn.relay.TestRelay;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each node's redeploy with a publish + REQ + SSE load running across it: a publisher that retries
 * what is refused or cut off, a subscriber that re-REQs when its connection goes, an SSE consumer
 * that resumes from its cursor. Afterwards every OK'd event is stored, reached the subscriber and
 * the SSE consumer, and the consumer saw no seq twice.
 */
class RedeployUnderLoadTest {
  private static final int EVENTS = 240;
  private static final Duration SETTLE = Duration.ofSeconds(30);
  /** Ends the consumer threads of the current run. */
  private static volatile boolean stop;

  @ParameterizedTest
  @ValueSource(strings = {"network-manager", "listener", "database-engine", "delivery", "conn-worker"})
  void nothingOkdIsLostAndEveryStreamSeesEveryEvent(String node) throws Exception {
    try (TestRelay relay = TestRelay.start()) {
      EventSigner author = EventSigner.random();
      Set<String> okd = ConcurrentHashMap.newKeySet();
      Set<String> viaReq = ConcurrentHashMap.newKeySet();
      Set<String> viaSse = ConcurrentHashMap.newKeySet();
      AtomicReference<String> sseProblem = new AtomicReference<>();
      AtomicInteger reconnects = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      stop = false;

      threads.add(loop("req", () -> {
        // every (re)connection asks for history and stays live: the union must hold every OK'd event
        try (RelayClient c = relay.connect()) {
          c.req("s", new JsonObject().put("authors", new JsonArray().add(author.pubkey())));
          while (!stop && !c.isClosed()) {
            JsonArray f = c.poll(Duration.ofMillis(200));
            if (f != null && f.getString(0).equals("EVENT")) {
              viaReq.add(f.getJsonObject(2).getString("id"));
            }
          }
        }
        reconnects.incrementAndGet();
        return null;
      }));

      AtomicReference<String> cursor = new AtomicReference<>();
      threads.add(loop("sse", () -> {
        String last = cursor.get();
        try (SseClient sse = SseClient.open(relay.httpUrl() + "/v1/events",
            last == null ? Map.of() : Map.of("Last-Event-ID", last))) {
          while (!stop) {
            SseClient.Frame f = sse.next(Duration.ofSeconds(60));
            if (f.id() != null && !f.id().isEmpty()) {
              String before = cursor.get();
              if (f.event().equals("stored") && before != null && before.startsWith(f.epoch() + ":")
                  && f.seq() <= Long.parseLong(before.substring(before.indexOf(':') + 1))) {
                sseProblem.compareAndSet(null, "seq " + f.seq() + " came again after " + before);
              }
              cursor.set(f.id());
            }
            if (f.event().equals("stored")) {
              viaSse.add(f.data().getJsonObject("event").getString("id"));
            }
          }
        } catch (AssertionError ended) {
          reconnects.incrementAndGet(); // the stream ended with its listener: resume from the cursor
        }
        return null;
      }));
      threads.forEach(Thread::start);
      // A stream without a cursor starts at the feed's head (initial_sync): publishing before its first
      // frame came would leave the first events before it, and the REQ consumer asks history anyway.
      long attachBy = System.currentTimeMillis() + SETTLE.toMillis();
      while (cursor.get() == null) {
        assertTrue(System.currentTimeMillis() < attachBy, "the SSE consumer never got its first frame");
        Thread.sleep(20);
      }

      RelayClient pub = relay.connect();
      try {
        for (int i = 0; i < EVENTS; i++) {
          if (i == EVENTS / 3) {
            crash(relay, node);
          }
          JsonObject e = Events.note(author, "event " + i, List.of());
          long deadline = System.currentTimeMillis() + SETTLE.toMillis();
          while (true) {
            assertTrue(System.currentTimeMillis() < deadline, "event " + i + " never OK'd");
            try {
              JsonArray ok = pub.publishAndWait(e);
              if (ok.getBoolean(2)) {
                okd.add(e.getString("id"));
                break;
              }
              assertTrue(ok.getString(3).startsWith("error:"), "only a transient refusal: " + ok.encode());
              Thread.sleep(50);
            } catch (AssertionError cutOff) {
              // the connection went with the node (no OK came): reconnect and send the same event again
              pub.close();
              Thread.sleep(100);
              pub = connectWithin(relay, deadline);
            }
          }
        }
      } finally {
        pub.close();
      }

      awaitContains("the subscriber", viaReq, okd);
      awaitContains("the SSE consumer", viaSse, okd);
      stop = true;
      for (Thread t : threads) {
        t.join(5_000);
      }
      assertEquals(null, sseProblem.get(), "no duplicate on the SSE stream");
      try (RelayClient check = relay.connect()) {
        Set<String> stored = new HashSet<>();
        check.query("all", new JsonObject().put("authors", new JsonArray().add(author.pubkey()))
            .put("limit", EVENTS * 2)).forEach(ev -> stored.add(ev.getString("id")));
        assertTrue(stored.containsAll(okd), "every OK'd event is stored");
        assertEquals(EVENTS, okd.size());
      }
    }
  }

  /** Kills one node the way a bug would: a message its handler cannot take throws on its own context. */
  private static void crash(TestRelay relay, String node) {
    String address = switch (node) {
      case "network-manager" -> Addresses.NETWORK_MANAGER;
      case "listener" -> Addresses.listener(0);
      case "database-engine" -> Addresses.DATABASE_ENGINE;
      case "delivery" -> Addresses.DELIVERY;
      case "conn-worker" -> Addresses.connWorker(0);
      default -> throw new IllegalArgumentException(node);
    };
    relay.server().vertx().eventBus().send(address, "poison");
  }

  private static RelayClient connectWithin(TestRelay relay, long deadline) throws Exception {
    while (true) {
      try {
        return relay.connect();
      } catch (Exception refused) {
        if (System.currentTimeMillis() > deadline) {
          throw refused;
        }
        Thread.sleep(100); // the listener is being redeployed
      }
    }
  }

  /** A consumer thread: runs {@code body} again (a reconnection) until the test stops it. */
  private static Thread loop(String name, Callable body) {
    Thread t = new Thread(() -> {
      while (!stop) {
        try {
          body.call();
        } catch (Exception | AssertionError e) {
          try {
            Thread.sleep(100); // refused while the node comes back
          } catch (InterruptedException stop) {
            return;
          }
        }
      }
    }, "load-" + name);
    t.setDaemon(true);
    return t;
  }

  @FunctionalInterface
  private interface Callable {
    Object call() throws Exception;
  }

  private static void awaitContains(String who, Set<String> seen, Set<String> okd) throws InterruptedException {
    long deadline = System.currentTimeMillis() + SETTLE.toMillis();
    while (!seen.containsAll(okd) && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    Set<String> missing = new HashSet<>(okd);
    missing.removeAll(seen);
    assertTrue(missing.isEmpty(), who + " missed " + missing.size() + " OK'd events");
  }
}
