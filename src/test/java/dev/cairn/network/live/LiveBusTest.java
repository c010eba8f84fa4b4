package dev.cairn.network.live;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.impl.Headers;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Two LiveBus instances as two pods against the real NATS at 127.0.0.1:4222, on a subject prefix of
 * their own: what A publishes reaches B (not A), in order, with tenant, seq and event bytes intact.
 */
class LiveBusTest {
  private static final String URL = "nats://127.0.0.1:4222";

  private Vertx vertx;
  private String prefix;
  private final List<LiveBus> buses = new ArrayList<>();

  @BeforeEach
  void setUp() {
    try (Connection c = Nats.connect(URL)) {
      c.flush(java.time.Duration.ofSeconds(2));
    } catch (Exception e) {
      Assumptions.abort("NATS is not reachable at " + URL + ": " + e);
    }
    vertx = Vertx.vertx();
    prefix = "cairnlivetest" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
  }

  @AfterEach
  void tearDown() throws Exception {
    for (LiveBus b : buses) {
      b.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  /**
   * A pod's bus whose received messages land in {@code into}; {@code onEventLoop} notes a hand-over on a
   * Vert.x thread (it must come on jnats' own dispatcher thread, decoded there).
   */
  private LiveBus pod(String id, BlockingQueue<LiveBus.Received> into, AtomicReference<String> onEventLoop)
      throws Exception {
    LiveBus bus = new LiveBus(vertx, new LiveSettings(true, URL, prefix, id), r -> {
      if (Vertx.currentContext() != null) {
        onEventLoop.set(Thread.currentThread().getName());
      }
      return into.add(r);
    });
    buses.add(bus);
    bus.start().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!bus.connected() && System.nanoTime() < until) {
      Thread.sleep(20);
    }
    assertTrue(bus.connected(), "pod " + id + " connected to NATS");
    return bus;
  }

  /** Publishes probes from {@code from} until {@code to} hears one: both subscriptions are in place. */
  private static void awaitRoute(LiveBus from, BlockingQueue<LiveBus.Received> to, NostrEvent probe)
      throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < until) {
      from.publish("probe", 0, probe.json());
      if (to.poll(100, TimeUnit.MILLISECONDS) != null) {
        Thread.sleep(200);
        to.clear();
        return;
      }
    }
    throw new AssertionError("no route between the pods");
  }

  @Test
  void aPodsPublicationsReachTheOtherPodInOrderAndNotItself() throws Exception {
    BlockingQueue<LiveBus.Received> atA = new LinkedBlockingQueue<>();
    BlockingQueue<LiveBus.Received> atB = new LinkedBlockingQueue<>();
    AtomicReference<String> wrongThread = new AtomicReference<>();
    LiveBus a = pod("pod-a", atA, wrongThread);
    LiveBus b = pod("pod-b", atB, wrongThread);
    EventSigner signer = EventSigner.random();
    awaitRoute(a, atB, signer.sign(1, 20001, List.of(), "probe"));
    awaitRoute(b, atA, signer.sign(1, 20001, List.of(), "probe"));

    List<NostrEvent> sent = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      // unicode and escapes in content and tags: the bytes must survive as stored
      NostrEvent e = signer.sign(1_700_000_000L + i, i % 2 == 0 ? 1 : 20001,
          List.of(List.of("t", "tag\"" + i), List.of("p", signer.pubkey())), "note " + i + " \u00e9\u4e16\n\\");
      sent.add(e);
      assertTrue(a.publish(i % 3 == 0 ? "shop-1" : "default", e.kind() == 1 ? 100 + i : 0, e.json()));
    }
    for (int i = 0; i < sent.size(); i++) {
      LiveBus.Received r = atB.poll(10, TimeUnit.SECONDS);
      assertNotNull(r, "message " + i + " reached pod B");
      NostrEvent e = sent.get(i);
      assertEquals("pod-a", r.pod());
      assertEquals(i % 3 == 0 ? "shop-1" : "default", r.tenant());
      assertEquals(e.kind() == 1 ? 100 + i : 0, r.seq(), "seq of message " + i);
      assertEquals(e.id(), r.event().id(), "message " + i + " in order");
      assertArrayEquals(e.json(), r.event().json(), "event bytes intact");
      assertEquals(e.tags(), r.event().tags());
      assertEquals(e.content(), r.event().content());
    }
    Thread.sleep(300);
    assertTrue(atA.isEmpty(), "a pod never hears itself: " + atA.size());
    assertTrue(atB.isEmpty(), "nothing twice");
    assertNull(wrongThread.get(), "received messages are decoded and handed over off the event loops");
  }

  @Test
  void aBeaconCarriesOnlyTheSeq() throws Exception {
    BlockingQueue<LiveBus.Received> atB = new LinkedBlockingQueue<>();
    AtomicReference<String> wrongThread = new AtomicReference<>();
    LiveBus a = pod("pod-a", new LinkedBlockingQueue<>(), wrongThread);
    pod("pod-b", atB, wrongThread);
    awaitRoute(a, atB, EventSigner.random().sign(1, 20001, List.of(), "probe"));
    assertTrue(a.beacon("default", 42));
    LiveBus.Received r = atB.poll(10, TimeUnit.SECONDS);
    assertNotNull(r);
    assertTrue(r.beacon());
    assertEquals(42, r.seq());
    assertEquals("default", r.tenant());
    assertEquals("pod-a", r.pod());
  }

  @Test
  void malformedMessagesAndOtherSubjectsAreIgnored() throws Exception {
    BlockingQueue<LiveBus.Received> atB = new LinkedBlockingQueue<>();
    AtomicReference<String> wrongThread = new AtomicReference<>();
    LiveBus a = pod("pod-a", new LinkedBlockingQueue<>(), wrongThread);
    pod("pod-b", atB, wrongThread);
    EventSigner signer = EventSigner.random();
    awaitRoute(a, atB, signer.sign(1, 20001, List.of(), "probe"));
    try (Connection raw = Nats.connect(URL)) {
      String subject = prefix + "-live.default";
      raw.publish(subject, "no headers".getBytes(StandardCharsets.UTF_8));
      raw.publish(subject, new Headers().put(LiveBus.POD, "pod-x").put(LiveBus.SEQ, "x"),
          signer.sign(1, 1, List.of(), "bad seq").json());
      raw.publish(subject, new Headers().put(LiveBus.POD, "pod-x").put(LiveBus.SEQ, "5"),
          "{not an event".getBytes(StandardCharsets.UTF_8));
      NostrEvent good = signer.sign(1, 1, List.of(), "good");
      raw.publish(subject, new Headers().put(LiveBus.POD, "pod-x").put(LiveBus.SEQ, "6"), good.json());
      raw.flush(java.time.Duration.ofSeconds(2));
      LiveBus.Received r = atB.poll(10, TimeUnit.SECONDS);
      assertNotNull(r);
      assertEquals(good.id(), r.event().id(), "the malformed ones before it were skipped");
      assertEquals(6, r.seq());
      assertEquals("pod-x", r.pod());
    }
  }

  @Test
  void withNatsDownPublishingReturnsAtOnceAndStartDoesNotWait() throws Exception {
    LiveBus down = new LiveBus(vertx, new LiveSettings(true, "nats://127.0.0.1:1", prefix, "pod-down"), r -> true);
    buses.add(down);
    down.start().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    NostrEvent e = EventSigner.random().sign(1, 1, List.of(), "nobody hears this");
    long t0 = System.nanoTime();
    for (int i = 0; i < 1000; i++) {
      assertFalse(down.publish("default", i + 1, e.json()));
    }
    assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(1), "publishing never waits for NATS");
    assertEquals(1000, down.dropped());
    assertFalse(down.connected());
  }
}
