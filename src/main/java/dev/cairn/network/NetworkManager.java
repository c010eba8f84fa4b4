package dev.cairn.network;

import dev.cairn.admin.RelayAdmin;
import dev.cairn.config.CairnConfig;
import dev.cairn.config.PolicyConfig;
import dev.cairn.config.TenantConfig;
import dev.cairn.metrics.CairnMetrics;
import dev.cairn.metrics.HealthProbes;
import dev.cairn.network.live.LiveBus;
import dev.cairn.network.live.LiveSequencer;
import dev.cairn.network.live.LiveSettings;
import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.store.StoredEvent;
import dev.cairn.root.RootInbox;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Child;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.OrderedSender;
import dev.cairn.tree.Supervised;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The relay proper: knows which listener and conn-worker each connection belongs to and forwards
 * between them, holds the only subscription registry and matches every dispatched event. Owns one
 * listener per bind address and N conn-workers; connections go to a worker chosen at random.
 */
public final class NetworkManager extends Supervised {
  private static final Logger LOG = Logger.getLogger(NetworkManager.class.getName());
  /** Events held ahead of a seq gap per tenant before it is read from the store at once. */
  static final int LIVE_MAX_BUFFERED = 10_000;
  /** How long a seq gap may stay open (an event still on its way over NATS) before it is read from the store. */
  static final long LIVE_GAP_MILLIS = 100;
  /** A catch-up read unanswered this long (its database-engine restarted) is asked for again. */
  static final long LIVE_CATCH_UP_TIMEOUT_MILLIS = 10_000;
  /** A tenant this pod wrote is beaconed this often, for this long after its last write (LiveBus.beacon). */
  static final long LIVE_BEACON_INTERVAL_MILLIS = 1_000;
  static final long LIVE_BEACON_FOR_MILLIS = 10_000;

  private final CairnConfig config;
  private final CairnMetrics metrics;
  private final HealthProbes probes;
  private RelayAdmin admin;
  private final Channels channels;
  /**
   * Every stored event, local or from another pod, passes through here before matching: released in
   * seq order, once; its high water is the seq floor of a new REQ (live/LiveSequencer).
   */
  private final LiveSequencer<NetworkInbox.Dispatch> sequencer;
  /** Live fan-out across pods (null when off: the embedded single pod). */
  private LiveBus bus;
  private long gapTimer = -1;
  /** Tenants this pod wrote lately, with {last seq, when}: what its beacons announce. */
  private final Map<String, long[]> recentWrites = new HashMap<>();
  private long gapTimerAt = Long.MAX_VALUE;
  /** By connection id, unboxed: looked up once per matched connection per event. */
  private final io.netty.util.collection.LongObjectHashMap<Conn> conns = new io.netty.util.collection.LongObjectHashMap<>();
  private final SubscriptionRegistry registry = new SubscriptionRegistry();
  private final List<Worker> workers = new ArrayList<>();
  private final List<Child> listenerChildren = new ArrayList<>();
  /** Numbers each new listener instance (owned by root, which outlives this node): see {@link ConnIds}. */
  private final LongSupplier incarnations;
  private Inbox<NetworkInbox> inbox;
  private OrderedSender<RootInbox> toRoot;
  private long nextSerial = 1;
  /** NIP-77 items held by the sync sessions of all this manager's conn-workers. */
  private final SyncBudget syncBudget;

  /** {@code ip}: the remote address without its port, for policy's per-IP rules. */
  private record Conn(long connId, String tenant, int listener, Worker worker, String remote, String ip) {}

  private final class Worker {
    final int index;
    OrderedSender<ConnWorkerInbox> sender;
    Child child;

    Worker(int index) {
      this.index = index;
    }
  }

  /** A tenant store's current high water (-1: not open); for tenants added after start. */
  private java.util.function.ToLongFunction<String> storeHighWater = t -> -1;

  /** Runtime tenants (issue 10): where the seq floor of a tenant that appeared after start comes from. */
  public NetworkManager withStoreHighWater(java.util.function.ToLongFunction<String> highWater) {
    this.storeHighWater = highWater;
    return this;
  }

  public NetworkManager(CairnConfig config, CairnMetrics metrics, HealthProbes probes, Channels channels,
      Map<String, Long> highWater, LongSupplier incarnations, CrashReporter root) {
    super(root);
    this.incarnations = incarnations;
    this.probes = probes;
    this.config = config;
    this.metrics = metrics;
    this.channels = channels;
    this.sequencer = new LiveSequencer<>(highWater, LIVE_MAX_BUFFERED, LIVE_GAP_MILLIS, LIVE_CATCH_UP_TIMEOUT_MILLIS);
    this.syncBudget = new SyncBudget(config.limits().negentropyMaxRecordsTotal());
  }

  /** The start-up warm-up before the listeners open ({@link StartupWarmup}); zero: none. */
  private java.time.Duration startupWarmup = java.time.Duration.ZERO;
  private String warmupTenant;
  private java.util.function.Supplier<Future<Void>> warmupOver = Future::succeededFuture;

  /**
   * {@code tenant}: the warm-up's own tenant, whose events are stored (null: the default tenant, ephemeral
   * events only); {@code over}: called once the warm-up's traffic is over or skipped, before the listeners
   * open, and waited for.
   */
  public NetworkManager withStartupWarmup(java.time.Duration warmup, String tenant,
      java.util.function.Supplier<Future<Void>> over) {
    this.startupWarmup = warmup;
    this.warmupTenant = tenant;
    this.warmupOver = over;
    return this;
  }

  /** The NIP-86 state the listeners serve the management API and NIP-11 from. */
  public NetworkManager withAdmin(RelayAdmin admin) {
    this.admin = admin;
    return this;
  }

  @Override
  protected Future<?> startNode() {
    inbox = new Inbox<>(vertx, Addresses.NETWORK_MANAGER, NetworkInbox.class, this::handle);
    toRoot = new OrderedSender<>(channels.open("network-manager->root", Addresses.ROOT));
    LiveSettings live = LiveSettings.from(config);
    if (live.enabled()) {
      // Other pods' events come in through a channel to this node's own inbox: ordered with the local
      // Dispatches from root, and bounded (a full channel drops; the gap is read from the store).
      BoundedChannel<NetworkInbox> fromBus = channels.open("live-bus->network-manager", Addresses.NETWORK_MANAGER);
      bus = new LiveBus(vertx, live, r -> fromBus.trySend(new NetworkInbox.Remote(r.pod(), r.tenant(), r.seq(), r.event())));
      bus.start(); // in the background: this pod serves its clients while NATS is down
      vertx.setPeriodic(LIVE_BEACON_INTERVAL_MILLIS, id -> beacons());
    }
    List<Future<?>> started = new ArrayList<>();
    for (int i = 0; i < config.connWorkers(); i++) {
      Worker w = new Worker(i);
      w.sender = new OrderedSender<>(channels.open("network-manager->conn-worker", Addresses.connWorker(i),
          stalled -> restartWorker(w, "stalled past the send retry window")));
      w.child = new Child("conn-worker " + i, Addresses.connWorker(i), () -> new ConnWorker(w.index, config.limits(),
          channels, metrics, syncBudget, (child, cause) -> context.runOnContext(v -> restartWorker(w, cause.toString()))));
      workers.add(w);
      started.add(w.child.deploy(vertx));
    }
    return Future.all(started).compose(x -> warmUp(live)).compose(x -> {
      List<Future<?>> listening = new ArrayList<>();
      for (int i = 0; i < config.binds().size(); i++) {
        int index = i;
        Child l = new Child("listener " + i, Addresses.listener(i), () -> new Listener(index, incarnations.getAsLong(),
            config.binds().get(index), config, metrics, channels, probes, admin,
            (child, cause) -> context.runOnContext(v -> restartListener(index, cause.toString()))));
        listenerChildren.add(l);
        listening.add(l.deploy(vertx));
      }
      return Future.all(listening);
    });
  }

  /** Why the warm-up's traffic must not run here (its effects would outlive it), or null. */
  private static String warmupSkipReason(LiveSettings live, PolicyConfig.TenantPolicy policy) {
    if (live.enabled()) {
      return "live fan-out across pods is on (live.enabled): the other pods' clients would get its events";
    }
    if (policy.plugin().enabled() || !policy.javaPolicies().isEmpty()) {
      return "a write-policy plugin or Java policies would judge its events";
    }
    if (policy.eventsPerIp().enabled() || policy.reqsPerIp().enabled() || policy.connectionsPerIp().enabled()) {
      // behind a reverse proxy every client is 127.0.0.1 too: they would find its buckets empty
      return "per-IP rate limits are on (policy.rate.*_per_ip): its traffic would empty 127.0.0.1's buckets";
    }
    return null;
  }

  /**
   * The start-up warm-up (docs/decisions/0011-startup-warmup.md), then {@code warmupOver}: never fails
   * the start.
   */
  private Future<?> warmUp(LiveSettings live) {
    if (startupWarmup.isZero()) {
      return warmupOver.get();
    }
    return warmupTraffic(live).eventually(warmupOver).recover(t -> {
      LOG.warning("start-up warm-up: its tenant could not be removed: " + t);
      return Future.succeededFuture();
    });
  }

  /**
   * The warm-up's traffic: a listener of its own on an ephemeral loopback port, after the conn-workers
   * and before the configured listeners, so no client is connected while it runs; the listener is gone
   * again when this completes.
   */
  private Future<?> warmupTraffic(LiveSettings live) {
    String tenant = warmupTenant != null ? warmupTenant : TenantConfig.DEFAULT;
    String skip = warmupSkipReason(live, config.policy().forTenant(tenant));
    if (skip != null) {
      LOG.info("start-up warm-up skipped: " + skip);
      return Future.succeededFuture();
    }
    int index = config.binds().size(); // after the configured listeners' indexes
    Listener[] created = new Listener[1];
    Child child = new Child("warm-up listener", Addresses.listener(index), () -> created[0] = new Listener(index,
        incarnations.getAsLong(), new CairnConfig.Bind("127.0.0.1", 0), config, metrics, channels, probes, admin,
        (c, cause) -> LOG.warning("start-up warm-up: its listener failed: " + cause)));
    boolean tls = !config.tlsCert().isEmpty();
    return child.deploy(vertx)
        .compose(id -> StartupWarmup.run(vertx, created[0].port(), tls, startupWarmup, warmupTenant)
            .onSuccess(r -> LOG.info("start-up warm-up: " + r))
            .eventually(() -> vertx.undeploy(id)))
        .onComplete(x -> listeners.remove(index))
        .recover(t -> {
          LOG.warning("start-up warm-up skipped: " + t);
          return Future.succeededFuture();
        });
  }

  /**
   * A dead conn-worker is redeployed at the same address. Its connections' protocol state is gone,
   * so they are closed (clients reconnect); every other connection keeps being served.
   */
  private void restartWorker(Worker w, String cause) {
    w.child.redeploy(vertx, channels, cause, () -> {
      List<Conn> lost = conns.values().stream().filter(c -> c.worker() == w).toList();
      LOG.log(Level.SEVERE, "closing the " + lost.size() + " connections of conn-worker " + w.index);
      w.sender.clear();
      for (Conn c : lost) {
        listener(c.listener()).sendOwed(new ListenerInbox.Close(c.connId(), (short) 1011,
            "internal error: connection worker restarted, please reconnect"));
        forget(c);
      }
    });
  }

  /**
   * A dead listener is redeployed on its bind address. Its sockets went with it (its HTTP server
   * closed them): their connections are forgotten here and in their conn-workers; clients reconnect.
   */
  private void restartListener(int index, String cause) {
    listenerChildren.get(index).redeploy(vertx, channels, cause, () -> {
      List<Conn> lost = conns.values().stream().filter(c -> c.listener() == index).toList();
      LOG.log(Level.SEVERE, "forgetting the " + lost.size() + " connections of listener " + index);
      for (Conn c : lost) {
        forget(c);
        c.worker().sender.channel().sendOwed(new ConnWorkerInbox.Detach(c.connId()));
      }
    });
  }

  private final Map<Integer, BoundedChannel<ListenerInbox>> listeners = new HashMap<>();

  private BoundedChannel<ListenerInbox> listener(int index) {
    return listeners.computeIfAbsent(index, i -> channels.open("network-manager->listener", Addresses.listener(i)));
  }

  private void handle(NetworkInbox msg) {
    if (msg instanceof NetworkInbox.Frame f) {
      Conn c = conns.get(f.connId());
      if (c != null) {
        c.worker().sender.send(new ConnWorkerInbox.Parse(f.connId(), f.message()), inbox);
      }
    } else if (msg instanceof NetworkInbox.BadFrame b) {
      Conn c = conns.get(b.connId());
      if (c != null) {
        c.worker().sender.send(new ConnWorkerInbox.BadFrame(b.connId(), b.notice(), b.closeCode()), inbox);
      }
    } else if (msg instanceof NetworkInbox.Stalled st) {
      Conn c = conns.get(st.connId());
      if (c != null) {
        c.worker().sender.send(new ConnWorkerInbox.Stalled(st.connId(), st.stalled()), inbox);
      }
    } else if (msg instanceof NetworkInbox.Dispatch d) {
      if (bus != null) {
        bus.publish(d.tenant(), d.seq(), d.event().json()); // never waits: other pods catch up what NATS loses
        if (d.seq() > 0) {
          long[] w = recentWrites.computeIfAbsent(d.tenant(), t -> new long[2]);
          w[0] = Math.max(w[0], d.seq());
          w[1] = now();
        }
      }
      sequenced(d);
    } else if (msg instanceof NetworkInbox.CaughtUp c) {
      caughtUp(c);
    } else if (msg instanceof NetworkInbox.Remote r) {
      received(r);
    } else if (msg instanceof NetworkInbox.Outcome o) {
      Conn c = conns.get(o.connId());
      if (c != null) {
        c.worker().sender.channel().sendOwed(new ConnWorkerInbox.Ok(o.connId(), o.eventId(), o.accepted(), o.message()));
      }
    } else if (msg instanceof NetworkInbox.Publish p) {
      Conn c = conns.get(p.connId());
      if (c != null) {
        toRoot.send(new RootInbox.Submit(p.connId(), c.tenant(), p.event(), p.authedPubkey(), c.ip()), inbox);
      }
    } else if (msg instanceof NetworkInbox.Authenticate a) {
      if (conns.containsKey(a.connId())) {
        toRoot.send(new RootInbox.Authenticate(a.connId(), a.event()), inbox);
      }
    } else if (msg instanceof NetworkInbox.Authenticated a) {
      Conn c = conns.get(a.connId());
      if (c != null) {
        c.worker().sender.channel().sendOwed(
            new ConnWorkerInbox.Authenticated(a.connId(), a.eventId(), a.pubkey(), a.ok(), a.message()));
      }
    } else if (msg instanceof NetworkInbox.Subscribe s) {
      subscribe(s);
    } else if (msg instanceof NetworkInbox.Unsubscribe u) {
      Conn c = conns.get(u.connId());
      if (c != null) {
        metrics.subscriptions(c.tenant()).addAndGet(-registry.remove(u.connId(), u.subId()));
      }
    } else if (msg instanceof NetworkInbox.HistoryAnswer a) {
      answer(a);
    } else if (msg instanceof NetworkInbox.SyncOpen o) {
      Conn c = conns.get(o.connId());
      if (c != null) {
        toRoot.send(new RootInbox.SyncOpen(o.connId(), c.tenant(), o.subId(), o.session(), o.filter(), c.ip()), inbox);
      }
    } else if (msg instanceof NetworkInbox.SyncItemsRead r) {
      Conn c = conns.get(r.connId());
      if (c != null) {
        c.worker().sender.channel().sendOwed(
            new ConnWorkerInbox.SyncItemsRead(r.connId(), r.subId(), r.session(), r.items(), r.error()));
      }
    } else if (msg instanceof NetworkInbox.Opened o) {
      Worker w = workers.get(ThreadLocalRandom.current().nextInt(workers.size()));
      Conn c = new Conn(o.connId(), o.tenant(), o.listener(), w, o.remote(), ipOf(o.remote()));
      conns.put(o.connId(), c);
      metrics.connections(o.tenant()).incrementAndGet();
      w.sender.send(new ConnWorkerInbox.Attach(o.connId(), o.tenant(), o.listener(), o.remote(), o.relayUrl()), inbox);
      // owed: one per Opened, which spent the listener's credit (and a second send() here could hold it twice)
      toRoot.channel().sendOwed(new RootInbox.Connected(o.connId(), o.tenant(), c.ip()));
    } else if (msg instanceof NetworkInbox.Refuse r) {
      refuse(r);
    } else if (msg instanceof NetworkInbox.Gone g) {
      Conn c = conns.get(g.connId());
      if (c != null) {
        forget(c);
        c.worker().sender.send(new ConnWorkerInbox.Detach(g.connId()), inbox);
        // owed, like Connected: what the closed connection still has waiting for the store is not run
        toRoot.channel().sendOwed(new RootInbox.Disconnected(g.connId()));
      }
    }
  }

  private void forget(Conn c) {
    conns.remove(c.connId());
    metrics.connections(c.tenant()).decrementAndGet();
    metrics.subscriptions(c.tenant()).addAndGet(-registry.removeConn(c.connId()));
  }

  /** Registers the REQ with its seq floor before its history query runs (CONTRACT section 3). */
  private void subscribe(NetworkInbox.Subscribe s) {
    Conn c = conns.get(s.connId());
    if (c == null) {
      return;
    }
    if (!sequencer.knows(c.tenant())) {
      // A tenant added at runtime after this node started: its floor comes from its store's high water,
      // like the start's tenants (dispatches of seqs below it still on their way are in the history).
      long hw = storeHighWater.applyAsLong(c.tenant());
      if (hw >= 0) {
        sequencer.seed(c.tenant(), hw);
      }
    }
    long floor = sequencer.highWater(c.tenant()) + 1;
    long serial = nextSerial++;
    if (!s.count()) {
      int added = registry.put(c.tenant(), s.connId(), new Subscription(s.subId(), serial, s.filters(), floor));
      metrics.subscriptions(c.tenant()).addAndGet(added);
    }
    toRoot.send(new RootInbox.History(s.connId(), c.tenant(), s.subId(), serial, s.filters(), floor, s.count(), c.ip()),
        inbox);
  }

  private void answer(NetworkInbox.HistoryAnswer a) {
    Conn c = conns.get(a.connId());
    if (c == null) {
      return;
    }
    OrderedSender<ConnWorkerInbox> out = c.worker().sender;
    if (a.count()) {
      out.channel().sendOwed(a.error() != null
          ? new ConnWorkerInbox.Refused(a.connId(), a.subId(), a.error())
          : new ConnWorkerInbox.Counted(a.connId(), a.subId(), a.total()));
      return;
    }
    Subscription sub = registry.get(a.connId(), a.subId());
    if (sub == null || sub.serial != a.subSerial()) {
      // closed, replaced by a newer REQ with the same id, or ended meanwhile: the worker counts its reads
      out.channel().sendOwed(new ConnWorkerInbox.ReadDropped(a.connId()));
      return;
    }
    if (a.error() != null) {
      metrics.subscriptions(c.tenant()).addAndGet(-registry.remove(a.connId(), a.subId()));
      out.channel().sendOwed(new ConnWorkerInbox.Refused(a.connId(), a.subId(), a.error()));
      return;
    }
    sub.historyDone = true;
    metrics.reqHistoryAnswered(System.nanoTime() - sub.registeredNanos);
    List<byte[]> held = sub.heldLive == null ? List.of() : sub.heldLive;
    sub.heldLive = null;
    out.channel().sendOwed(new ConnWorkerInbox.History(a.connId(), a.subId(), a.events(), held));
  }

  // ---- live order: local and other pods' events through the sequencer, gaps read from the store ----

  /** Another pod's event or beacon (LiveBus). Tenants this pod does not serve are ignored. */
  private void received(NetworkInbox.Remote r) {
    if (config.directory().get(r.tenant()) == null) {
      return;
    }
    if (r.event() == null) {
      sequencer.observe(r.tenant(), r.seq(), now());
      armGapTimer();
      return;
    }
    metrics.liveRemote(r.tenant());
    sequenced(new NetworkInbox.Dispatch(r.tenant(), r.event(), r.seq()));
  }

  private void sequenced(NetworkInbox.Dispatch d) {
    for (NetworkInbox.Dispatch released : sequencer.accept(d.tenant(), d.seq(), d, now())) {
      dispatch(released);
    }
    armGapTimer();
  }

  private void caughtUp(NetworkInbox.CaughtUp c) {
    if (c.error() != null) {
      LOG.warning("tenant " + c.tenant() + ": live catch-up of seq " + c.fromSeq() + ".. failed (" + c.error()
          + "); asking again");
      sequencer.catchUpFailed(c.tenant(), now());
    } else {
      List<LiveSequencer.Stored<NetworkInbox.Dispatch>> read = new ArrayList<>(c.events().size());
      for (StoredEvent e : c.events()) {
        try {
          read.add(new LiveSequencer.Stored<>(e.seq(),
              new NetworkInbox.Dispatch(c.tenant(), EventParser.parse(e.json()), e.seq())));
        } catch (InvalidMessageException x) {
          // stored events were checked on the way in; one that no longer parses is skipped like a gap
          LOG.warning("tenant " + c.tenant() + ": stored event at seq " + e.seq() + " does not parse: " + x);
        }
      }
      for (NetworkInbox.Dispatch released : sequencer.caughtUp(c.tenant(), c.fromSeq(), c.toSeq(), read, now())) {
        dispatch(released);
      }
    }
    armGapTimer();
  }

  /**
   * For a while after this pod writes a tenant, it tells the other pods how far its writes went: a lost
   * last message of a burst is then caught up within about a second instead of at the next write.
   */
  private void beacons() {
    long now = now();
    recentWrites.entrySet().removeIf(e -> now - e.getValue()[1] > LIVE_BEACON_FOR_MILLIS);
    recentWrites.forEach((tenant, w) -> bus.beacon(tenant, w[0]));
  }

  /** One timer for the earliest gap deadline of all tenants; it asks root for the catch-ups then due. */
  private void armGapTimer() {
    long deadline = sequencer.nextDeadline();
    if (deadline == Long.MAX_VALUE || (gapTimer >= 0 && gapTimerAt <= deadline)) {
      return;
    }
    if (gapTimer >= 0) {
      vertx.cancelTimer(gapTimer);
    }
    long now = now();
    gapTimerAt = Math.max(deadline, now);
    gapTimer = vertx.setTimer(Math.max(1, gapTimerAt - now), id -> {
      gapTimer = -1;
      gapTimerAt = Long.MAX_VALUE;
      for (LiveSequencer.CatchUp c : sequencer.due(now())) {
        toRoot.send(new RootInbox.CatchUp(c.tenant(), c.fromSeq(), c.toSeqExclusive()));
      }
      armGapTimer();
    });
  }

  /** Monotonic milliseconds for the sequencer's gap bounds. */
  private static long now() {
    return System.nanoTime() / 1_000_000;
  }

  /** Matches one event and hands each conn-worker one message with its connections that want it. */
  private void dispatch(NetworkInbox.Dispatch d) {
    List<Map.Entry<Long, String>> overflowed = new ArrayList<>(0);
    byte[] json = d.event().json();
    List<SubscriptionRegistry.Match> matches = registry.match(d.tenant(), d.event(), d.seq(), json, overflowed);
    if (!matches.isEmpty()) {
      Map<Worker, List<SubscriptionRegistry.Match>> byWorker = new HashMap<>(4);
      for (SubscriptionRegistry.Match m : matches) {
        Conn c = conns.get(m.connId());
        if (c != null) {
          List<SubscriptionRegistry.Match> mine = byWorker.get(c.worker());
          if (mine == null) {
            mine = new ArrayList<>(matches.size());
            byWorker.put(c.worker(), mine);
          }
          mine.add(m);
        }
      }
      byWorker.forEach((w, ms) -> w.sender.channel().sendOwed(new ConnWorkerInbox.Live(json, ms)));
    }
    for (Map.Entry<Long, String> o : overflowed) {
      Conn c = conns.get(o.getKey());
      if (c != null) {
        metrics.subscriptions(c.tenant()).addAndGet(-registry.remove(o.getKey(), o.getValue()));
        c.worker().sender.channel().sendOwed(new ConnWorkerInbox.Ended(o.getKey(), o.getValue(),
            "error: too many live events arrived before the stored ones were sent; please retry"));
      }
    }
  }

  @Override
  public Future<?> stop() {
    return bus == null ? Future.succeededFuture() : bus.close();
  }

  // ---- policy: connection refusal and the client's IP ----

  /**
   * Policy refused the connection (e.g. too many new connections from its IP): its worker sends
   * the NOTICE and closes it with 1008; the listener's close then forgets it as usual.
   */
  private void refuse(NetworkInbox.Refuse r) {
    Conn c = conns.get(r.connId());
    if (c != null) {
      c.worker().sender.send(new ConnWorkerInbox.BadFrame(r.connId(), r.reason(), (short) 1008), inbox);
    }
  }

  /** "1.2.3.4:5678" or "0:0:0:0:0:0:0:1:5678" (Vert.x's host:port): the host part. */
  static String ipOf(String remote) {
    if (remote == null || remote.equals("null")) {
      return null;
    }
    int colon = remote.lastIndexOf(':');
    return colon > 0 ? remote.substring(0, colon) : remote;
  }
}
