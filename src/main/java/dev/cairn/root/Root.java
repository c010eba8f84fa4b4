package dev.cairn.root;

import dev.cairn.admin.RelayAdmin;
import dev.cairn.config.CairnConfig;
import dev.cairn.delivery.Delivery;
import dev.cairn.delivery.outbox.OutboxSettings;
import dev.cairn.metrics.CairnMetrics;
import dev.cairn.metrics.HealthProbes;
import dev.cairn.network.BindProbe;
import dev.cairn.network.NetworkInbox;
import dev.cairn.network.NetworkManager;
import dev.cairn.nostr.Kinds;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.policy.Policy;
import dev.cairn.policy.PolicyInbox;
import dev.cairn.sig.SigInbox;
import dev.cairn.sig.SigManager;
import dev.cairn.store.DatabaseEngine;
import dev.cairn.store.DatabaseInbox;
import dev.cairn.store.PersistResult;
import dev.cairn.store.feed.FeedMetrics;
import dev.cairn.store.outbox.OutboxPendingGauge;
import dev.cairn.store.feed.FeedSettings;
import dev.cairn.store.signal.SignalMetrics;
import dev.cairn.store.signal.SignalSettings;
import io.vertx.core.json.JsonObject;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Child;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.OrderedSender;
import dev.cairn.tree.Supervised;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Router and supervisor. An inbound event goes to sig-manager, then policy, then database-engine
 * (or straight to dispatch when ephemeral); its outcome and Dispatch go to network-manager after
 * PersistAck. Root's only state is the in-flight verification set: the same event submitted again
 * while in flight joins the first submission instead of being verified twice.
 */
public final class Root extends VerticleBase {
  private static final Logger LOG = Logger.getLogger(Root.class.getName());

  /** Rows one catch-up read returns at most (bounded work per read; the rest is asked for again). */
  static final int CATCH_UP_MAX = 1000;

  private final CairnConfig config;
  private final CairnMetrics metrics;
  private final HealthProbes probes;
  /** Seed 003: one set of feed meters per server, shared by database-engine and delivery. */
  private final FeedMetrics feedMetrics;
  /** MySQL only (several pods): the signal plane's meters; null on SQLite. */
  private final SignalMetrics signalMetrics;
  private final FeedSettings feedSettings;
  /** Seed 000: cairn_outbox_pending, kept current by whichever database-engine is deployed. */
  private final OutboxPendingGauge outboxPending;
  /** Seed 000: the outbox's settings (outbox.*, nats.*, forward.relays). */
  private final OutboxSettings outboxSettings;
  /** NIP-86: what admins changed over the API, enforced by policy and served by the listeners. */
  private final RelayAdmin admin;
  private final Map<Long, InFlight> tickets = new HashMap<>();
  private final Map<String, InFlight> byEventKey = new HashMap<>();
  /**
   * Events on the write path (sig-manager, policy, database-engine) at most, and as many history reads
   * (REQ, COUNT) on theirs (policy, database-engine): {@link #PER_CREDIT} channel capacities each. Their
   * replies travel on debt, so the credits alone bound each hop but not the path: a client that sends
   * EVENTs without waiting for their OKs had the heap fill with events waiting for the database-engine
   * (70k of them, 560 MB live, from one client sending 150k events on 50 connections). Past the bound,
   * a Submit or History waits here with its network-manager credit: that channel fills, and the
   * listeners pause the sockets that feed it.
   */
  private final int maxInFlight;
  private static final int PER_CREDIT = 4;
  /** Non-AUTH events in {@link #tickets} (written on root's context only; read by the metrics scrape). */
  private volatile int eventsInFlight;
  /** Submits and Histories past {@link #maxInFlight}, in arrival order, each with its credit. */
  private final ArrayDeque<WaitingForRoom<RootInbox.Submit>> eventsWaiting = new ArrayDeque<>();
  private final ArrayDeque<WaitingForRoom<RootInbox.History>> readsWaiting = new ArrayDeque<>();
  private volatile int eventsWaitingCount;
  /** {@link #readsInFlight()} after root's last message, for the metrics scrape. */
  private volatile int readsInFlightCount;

  private record WaitingForRoom<M>(M message, Runnable release) {}
  /** REQs (history queries) waiting for policy's admission, by ticket. */
  private final Map<Long, RootInbox.History> admitting = new HashMap<>();
  /** History queries on database-engine, by sub serial (unique per REQ/COUNT): failed back if it dies. */
  private final Map<Long, RootInbox.History> querying = new HashMap<>();
  /** NIP-77 NEG-OPEN reads waiting for policy's admission, then running on database-engine, by ticket. */
  private final Map<Long, RootInbox.SyncOpen> admittingSync = new HashMap<>();
  private final Map<Long, RootInbox.SyncOpen> syncReading = new HashMap<>();
  /** The children, in deployment order; each redeploys itself from its factory (tree/Child). */
  private final Map<String, Child> children = new java.util.LinkedHashMap<>();
  private long nextTicket = 1;
  /** Every listener instance ever deployed gets the next number, so connection ids are never reused. */
  private final java.util.concurrent.atomic.AtomicLong listenerIncarnations = new java.util.concurrent.atomic.AtomicLong();
  private Channels channels;
  private Inbox<RootInbox> inbox;
  private OrderedSender<SigInbox> toSig;
  private OrderedSender<PolicyInbox> toPolicy;
  private OrderedSender<DatabaseInbox> toDatabase;
  /** Queries have their own channel so that a backlog of writes never delays a REQ's history. */
  private OrderedSender<DatabaseInbox> toDatabaseQueries;
  private BoundedChannel<NetworkInbox> toNetwork;
  private volatile boolean ready;
  private boolean networkManagerCreated;
  /**
   * The start-up warm-up's throwaway tenant (decision 0011): on SQLite its traffic is stored, in a store of
   * its own in a temporary directory, so the stored-event path through the tree is warm too; null when
   * there is none (no warm-up, MySQL, or once it is over).
   */
  private volatile String warmupTenant;
  private volatile DatabaseEngine currentEngine;

  /** An event between Submit and its outcome; every connection that sent it waits for one OK. */
  private static final class InFlight {
    final long ticket;
    final String tenant;
    final NostrEvent event;
    final String authedPubkey;
    /** The publishing client's IP (the first one's, when several sent the event). */
    String ip;
    /** A NIP-42 AUTH event: only its signature is checked, then the connection is told. */
    final boolean auth;
    final List<Long> waiters = new ArrayList<>(1);
    /** The node that holds the event now: sig-manager, policy or database-engine. */
    String stage;

    InFlight(long ticket, String tenant, NostrEvent event, String authedPubkey, boolean auth) {
      this.auth = auth;
      this.ticket = ticket;
      this.tenant = tenant;
      this.event = event;
      this.authedPubkey = authedPubkey;
    }
  }

  public Root(CairnConfig config, CairnMetrics metrics, Supplier<String> scrape) {
    this.config = config;
    this.metrics = metrics;
    this.probes = new HealthProbes(this::notReadyReason, scrape);
    this.feedMetrics = new FeedMetrics(metrics.registry());
    this.signalMetrics = config.store().mysql() ? new SignalMetrics(metrics.registry()) : null;
    this.feedSettings = FeedSettings.from(config);
    this.outboxPending = new OutboxPendingGauge(metrics.registry());
    this.outboxSettings = OutboxSettings.from(config.raw());
    this.admin = new RelayAdmin(config.storeDir().resolve("meta.db"));
    this.maxInFlight = PER_CREDIT * config.channelCapacity();
  }

  @Override
  public Future<?> stop() {
    return vertx.executeBlocking(() -> {
      admin.close();
      return null;
    });
  }

  /** True once every node of the tree is deployed. */
  public boolean ready() {
    return ready;
  }

  @Override
  public Future<?> start() {
    channels = new Channels(vertx, config.channelCapacity(), config.sendRetryWindowMillis(), metrics);
    io.micrometer.core.instrument.Gauge.builder("cairn_events_in_flight", this, r -> r.eventsInFlight)
        .description("Events on the write path (signature check, policy, group commit) between their EVENT"
            + " and their OK; at most 4 x tree.channel_capacity")
        .register(metrics.registry());
    io.micrometer.core.instrument.Gauge.builder("cairn_reads_in_flight", this, r -> r.readsInFlightCount)
        .description("History reads (REQ, COUNT) from root to their answer (policy's admission, the query); at most"
            + " 4 x tree.channel_capacity")
        .register(metrics.registry());
    io.micrometer.core.instrument.Gauge.builder("cairn_events_waiting_for_room", this, r -> r.eventsWaitingCount)
        .description("EVENTs held back because the write path is full; their sockets pause meanwhile")
        .register(metrics.registry());
    inbox = new Inbox<>(vertx, Addresses.ROOT, RootInbox.class, this::handle);
    toSig = new OrderedSender<>(channels.open("root->sig-manager", Addresses.SIG_MANAGER, s -> restart("sig-manager", s)));
    toPolicy = new OrderedSender<>(channels.open("root->policy", Addresses.POLICY, s -> restart("policy", s)));
    toDatabase = new OrderedSender<>(channels.open("root->database-engine", Addresses.DATABASE_ENGINE,
        s -> restart("database-engine", s)));
    toDatabaseQueries = new OrderedSender<>(channels.open("root->database-engine(query)", Addresses.DATABASE_ENGINE,
        s -> restart("database-engine", s)));
    toNetwork = channels.open("root->network-manager", Addresses.NETWORK_MANAGER);
    if (!config.startupWarmup().isZero() && !config.store().mysql()) {
      warmupTenant = "warmup-" + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong() >>> 16);
      config.directory().beginWarmup(dev.cairn.config.TenantConfig.runtime(warmupTenant,
          new JsonObject().put("name", "start-up warm-up"), config.relayInfo()));
    }
    child("database-engine", Addresses.DATABASE_ENGINE, this::databaseEngine);
    child("delivery", Addresses.DELIVERY, () -> new Delivery(channels, crashReporter("delivery"))
        .withFeed(feedSettings, feedMetrics)
        .withOutbox(outboxSettings, () -> config.directory().all().keySet(), metrics.registry()));
    child("policy", Addresses.POLICY, this::policy);
    child("sig-manager", Addresses.SIG_MANAGER, this::sigManager);
    // A (re)deployed network-manager starts from the stores' current high water: every event below it
    // is committed, and any dispatch of it still on its way is covered by a REQ's history query.
    child("network-manager", Addresses.NETWORK_MANAGER, () -> new NetworkManager(config, metrics, probes, channels,
        currentEngine.highWater(), listenerIncarnations::incrementAndGet, crashReporter("network-manager"))
        .withAdmin(admin).withStartupWarmup(firstNetworkManager(), warmupTenant, this::endWarmupTenant)
        .withStoreHighWater(t -> {
          DatabaseEngine e = currentEngine;
          return e == null ? -1 : e.highWaterOf(t);
        }));
    // The admins' bans must be in force before the first EVENT is judged: loaded (JDBC, on a worker) first.
    Future<?> started = vertx.executeBlocking(() -> {
      if (!config.startupWarmup().isZero()) {
        BindProbe.check(config.binds()); // the listeners bind after the warm-up: an address in use fails now
      }
      admin.open();
      return null;
    });
    for (Child c : children.values()) {
      started = started.compose(x -> c.deploy(vertx));
    }
    return started.onSuccess(x -> ready = true);
  }

  /**
   * The start-up warm-up's length for a network-manager being created: the configured one the first
   * time, none for a redeployed one (the JIT is warm by then, and its clients wait to reconnect).
   */
  private java.time.Duration firstNetworkManager() {
    boolean first = !networkManagerCreated;
    networkManagerCreated = true;
    return first ? config.startupWarmup() : java.time.Duration.ZERO;
  }

  /**
   * After the warm-up's traffic, before the listeners open: its tenant is unknown from now on, its store
   * closed and deleted, its meters gone. Network-manager's context.
   */
  private Future<Void> endWarmupTenant() {
    String tenant = warmupTenant;
    if (tenant == null) {
      return Future.succeededFuture();
    }
    warmupTenant = null;
    config.directory().endWarmup();
    return currentEngine.dropWarmupTenant().onComplete(x -> metrics.forgetTenant(tenant));
  }

  private void child(String name, String address, Supplier<? extends Supervised> factory) {
    children.put(name, new Child(name, address, factory));
  }

  /** Null when every node is deployed and the current database-engine's DBs answered; else why not. */
  private String notReadyReason() {
    if (!ready) {
      return "the verticle tree is not fully deployed";
    }
    for (Child c : children.values()) {
      if (!c.up()) {
        return c.name() + " is restarting";
      }
    }
    DatabaseEngine e = currentEngine;
    return e == null ? "database-engine is restarting" : e.dbProblem();
  }

  private DatabaseEngine databaseEngine() {
    // the store's start-up warm-up: the first engine only (a redeployed one finds the JIT warm), on the
    // embedded SQLite store it exercises (MySQL's write path is another)
    boolean warmup = currentEngine == null && !config.startupWarmup().isZero() && !config.store().mysql();
    return currentEngine = new DatabaseEngine(channels, config.storeDir(), List.copyOf(config.tenants().keySet()),
        config.storeReaders(), config.storeWriters(), config.maxBatch(), config.limits().defaultLimit(), config.limits().maxLimit(),
        crashReporter("database-engine")).withStore(config.store()).withOptions(config.storeOptions())
        .withStartupWarmup(warmup).withWarmupTenant(currentEngine == null ? warmupTenant : null)
        .withSignalPlane(signalMetrics == null ? null : SignalSettings.from(config), signalMetrics)
        .withFeed(feedSettings, feedMetrics).withOutboxGauge(outboxPending)
        .withCommitMeter((tenant, nanos, events) -> metrics.storeCommitted(nanos, events))
        .withOutboxSettledOnWrite(outboxSettings.deliversOutsideTheDb() ? null
            : dev.cairn.delivery.outbox.OutboxMetrics.publishedInDb(metrics.registry()))
        .withOutboxClaimedOnWrite(outboxSettings.relaysToNats())
        .withQueryBudget(config.limits().queryBudgetMillis(), config.limits().queryBudgetText(),
            metrics::queryBudgetExceeded, metrics::queryDropped)
        .withTenantDirectory(config.directory(), config.relayInfo());
  }

  private Policy policy() {
    return new Policy(channels, config, metrics, admin, crashReporter("policy"));
  }

  private SigManager sigManager() {
    return new SigManager(config.sigWorkers(), channels, metrics.sigVerify(), crashReporter("sig-manager"));
  }

  private Supervised.CrashReporter crashReporter(String name) {
    return (child, cause) -> context.runOnContext(v -> restart(name, String.valueOf(cause)));
  }

  /** A dead (or stuck) child is redeployed with its children; what it had in flight is failed back. */
  private void restart(String name, String cause) {
    Child c = children.get(name);
    if (c != null) {
      c.redeploy(vertx, channels, cause, () -> failInFlight(name));
    }
  }

  private void failInFlight(String node) {
    OrderedSender<?> sender = switch (node) {
      case "sig-manager" -> toSig;
      case "policy" -> toPolicy;
      case "database-engine" -> toDatabase;
      default -> null;
    };
    if (sender == null) {
      return;
    }
    sender.clear();
    if (node.equals("database-engine")) {
      toDatabaseQueries.clear();
      toPolicy.channel().sendOwed(new PolicyInbox.QueriesLost());
      failQueries("error: database-engine restarted, please retry");
    }
    if (node.equals("policy")) {
      failAdmissions();
    }
    // What the dead node held is failed back; the clients retry (a stored retry is a duplicate).
    for (InFlight f : new ArrayList<>(tickets.values())) {
      if (!node.equals(f.stage)) {
        continue;
      }
      if (f.auth) {
        tickets.remove(f.ticket);
        toNetwork.sendOwed(new NetworkInbox.Authenticated(f.waiters.get(0), f.event.id(), f.event.pubkey(), false,
            "error: " + node + " restarted, please retry"));
        continue;
      }
      finish(f, false, "error: " + node + " restarted, please retry", "error");
    }
    admitWaiting();
  }

  /** Root's inbox: one line per message, the work in the methods below (the event's path in order). */
  private void handle(RootInbox msg) {
    if (msg instanceof RootInbox.Submit s) {
      submitted(s);
    } else if (msg instanceof RootInbox.Authenticate a) {
      authenticate(a);
    } else if (msg instanceof RootInbox.Verified v) {
      verified(v);
    } else if (msg instanceof RootInbox.Judged j) {
      judged(j);
    } else if (msg instanceof RootInbox.Persisted p) {
      persisted(p);
    } else if (msg instanceof RootInbox.History h) {
      historyAsked(h);
    } else if (msg instanceof RootInbox.ReqAdmitted a) {
      if (admittingSync.containsKey(a.ticket())) {
        syncAdmitted(a);
      } else {
        reqAdmitted(a);
      }
    } else if (msg instanceof RootInbox.SyncOpen o) {
      admitSync(o);
    } else if (msg instanceof RootInbox.SyncReadDone d) {
      syncRead(d);
    } else if (msg instanceof RootInbox.Connected c) {
      toPolicy.send(new PolicyInbox.AdmitConnection(c.connId(), c.tenant(), c.ip()), inbox);
    } else if (msg instanceof RootInbox.Disconnected d) {
      // behind the connection's queries on the query channel, so it finds those still waiting for a turn
      toDatabaseQueries.send(new DatabaseInbox.Disconnected(d.connId()), inbox);
    } else if (msg instanceof RootInbox.ConnectionAdmitted a) {
      if (a.rejection() != null) {
        toNetwork.sendOwed(new NetworkInbox.Refuse(a.connId(), a.rejection()));
      }
    } else if (msg instanceof RootInbox.CatchUp c) {
      // Live fan-out across pods: a gap's read rides the query channel, like a REQ's history. Not tracked
      // here: if database-engine dies with it, network-manager asks again after its catch-up timeout.
      toDatabaseQueries.send(new DatabaseInbox.CatchUp(c.tenant(), c.fromSeq(), c.toSeqExclusive(), CATCH_UP_MAX), inbox);
    } else if (msg instanceof RootInbox.CaughtUp c) {
      toNetwork.sendOwed(new NetworkInbox.CaughtUp(c.tenant(), c.fromSeq(), c.toSeq(), c.events(), c.error()));
    } else if (msg instanceof RootInbox.HistoryDone d) {
      historyDone(d);
    }
    admitWaiting();
  }

  /** An EVENT from a connection: admitted when the write path has room, else it waits for room. */
  private void submitted(RootInbox.Submit s) {
    if (eventsInFlight >= maxInFlight || !eventsWaiting.isEmpty()) {
      eventsWaiting.add(new WaitingForRoom<>(s, inbox.hold()));
      eventsWaitingCount = eventsWaiting.size();
      return;
    }
    admit(s, null);
  }

  /** A REQ's or COUNT's history read: admitted when the read path has room, else it waits for room. */
  private void historyAsked(RootInbox.History h) {
    if (readsInFlight() >= maxInFlight || !readsWaiting.isEmpty()) {
      readsWaiting.add(new WaitingForRoom<>(h, inbox.hold()));
      return;
    }
    admitReq(h, null);
  }

  private int readsInFlight() {
    return admitting.size() + querying.size();
  }

  /** What waited for room, in order, while there is room (after each message and failure). */
  private void admitWaiting() {
    if (!eventsWaiting.isEmpty()) {
      WaitingForRoom<RootInbox.Submit> w;
      while (eventsInFlight < maxInFlight && (w = eventsWaiting.poll()) != null) {
        admit(w.message(), w.release());
      }
      eventsWaitingCount = eventsWaiting.size();
    }
    WaitingForRoom<RootInbox.History> r;
    while (!readsWaiting.isEmpty() && readsInFlight() < maxInFlight && (r = readsWaiting.poll()) != null) {
      admitReq(r.message(), r.release());
    }
    readsInFlightCount = readsInFlight();
  }

  /**
   * Joins the same event in flight, or goes to sig-manager. {@code release}: the Submit's credit when
   * it waited for room (null: the inbox gives it back).
   */
  private void admit(RootInbox.Submit s, Runnable release) {
    // id and sig: a forged copy of an in-flight event must not ride on the authentic one
    String key = s.tenant() + ":" + s.event().id() + ":" + s.event().sig();
    InFlight f = byEventKey.get(key);
    if (f != null) {
      f.waiters.add(s.connId());
      if (release != null) {
        release.run();
      }
      return;
    }
    f = new InFlight(nextTicket++, s.tenant(), s.event(), s.authedPubkey(), false);
    f.ip = s.ip();
    f.waiters.add(s.connId());
    tickets.put(f.ticket, f);
    byEventKey.put(key, f);
    eventsInFlight++;
    f.stage = "sig-manager";
    send(toSig, new SigInbox.Verify(f.ticket, s.event()), release);
  }

  /** Sends with the current message's credit ({@code release} null), or with the one it waited with. */
  private <M extends dev.cairn.tree.TreeMessage> void send(OrderedSender<M> to, M message, Runnable release) {
    if (release == null) {
      to.send(message, inbox);
    } else {
      to.send(message, release);
    }
  }

  /** A NIP-42 AUTH event: only its signature is checked. */
  private void authenticate(RootInbox.Authenticate a) {
    InFlight f = new InFlight(nextTicket++, null, a.event(), null, true);
    f.waiters.add(a.connId());
    f.stage = "sig-manager";
    tickets.put(f.ticket, f);
    toSig.send(new SigInbox.Verify(f.ticket, a.event()), inbox);
  }

  /** The signature's verdict: an AUTH answered, an invalid event refused, a valid one to policy. */
  private void verified(RootInbox.Verified v) {
    InFlight f = tickets.get(v.ticket());
    if (f == null) {
      return;
    }
    if (f.auth) {
      tickets.remove(f.ticket);
      toNetwork.sendOwed(new NetworkInbox.Authenticated(f.waiters.get(0), f.event.id(), f.event.pubkey(), v.valid(),
          v.valid() ? "" : v.reason()));
      return;
    }
    if (!v.valid()) {
      finish(f, false, v.reason(), v.reason().startsWith("error:") ? "error" : "invalid");
      return;
    }
    f.stage = "policy";
    toPolicy.send(new PolicyInbox.Judge(f.ticket, f.tenant, f.event, f.authedPubkey, f.ip), inbox);
  }

  /** Policy's verdict: refused, muted, relayed (ephemeral) or on to the database-engine. */
  private void judged(RootInbox.Judged j) {
    InFlight f = tickets.get(j.ticket());
    if (f == null) {
      return;
    }
    if (j.rejection() != null) {
      finish(f, false, j.rejection(), j.rejection().substring(0, j.rejection().indexOf(':')));
    } else if (j.muted()) {
      finish(f, true, "", "muted"); // shadow reject: OK true, neither stored nor dispatched
    } else if (Kinds.isEphemeral(f.event.kind())) {
      toNetwork.sendOwed(new NetworkInbox.Dispatch(f.tenant, f.event, 0));
      finish(f, true, "", "accepted");
    } else {
      f.stage = "database-engine";
      toDatabase.send(new DatabaseInbox.Persist(f.ticket, f.tenant, f.event), inbox);
    }
  }

  /** A group commit's outcomes: each stored event dispatched, then every waiter's OK. */
  private void persisted(RootInbox.Persisted p) {
    for (RootInbox.Persisted.Ack ack : p.acks()) {
      InFlight f = tickets.get(ack.ticket());
      if (f == null) {
        continue;
      }
      PersistResult r = ack.result();
      if (r instanceof PersistResult.Stored stored) {
        metrics.eventStored(f.tenant);
        toNetwork.sendOwed(new NetworkInbox.Dispatch(f.tenant, f.event, stored.seq()));
        finish(f, true, "", "accepted");
      } else if (r instanceof PersistResult.Duplicate d) {
        finish(f, true, d.message(), "duplicate");
      } else if (r instanceof PersistResult.Rejected rej) {
        finish(f, false, rej.message(), rej.message().substring(0, Math.max(0, rej.message().indexOf(':'))));
      }
    }
  }

  /** A REQ's stored events, to its connection (unless failed back already). */
  private void historyDone(RootInbox.HistoryDone d) {
    if (querying.remove(d.subSerial()) == null) {
      return; // failed back already: the engine that ran it was replaced
    }
    toPolicy.send(new PolicyInbox.QueryDone(d.connId()), inbox);
    toNetwork.sendOwed(new NetworkInbox.HistoryAnswer(d.connId(), d.subId(), d.subSerial(), d.count(), d.events(),
        d.total(), d.error()));
  }

  private void finish(InFlight f, boolean accepted, String message, String result) {
    tickets.remove(f.ticket);
    eventsInFlight--;
    byEventKey.remove(f.tenant + ":" + f.event.id() + ":" + f.event.sig());
    metrics.eventReceived(f.tenant, result);
    for (long conn : f.waiters) {
      toNetwork.sendOwed(new NetworkInbox.Outcome(conn, f.event.id(), accepted, message));
    }
  }

  // ---- REQ admission by policy: History -> AdmitReq -> ReqAdmitted -> Query (or CLOSED) ----

  /** {@code release}: the History's credit when it waited for room (null: the inbox gives it back). */
  private void admitReq(RootInbox.History h, Runnable release) {
    long ticket = nextTicket++;
    admitting.put(ticket, h);
    send(toPolicy, new PolicyInbox.AdmitReq(ticket, h.connId(), h.tenant(), h.ip(), h.subId(), h.filters(),
        h.count()), release);
  }

  private void reqAdmitted(RootInbox.ReqAdmitted a) {
    RootInbox.History h = admitting.remove(a.ticket());
    if (h == null) {
      return;
    }
    if (a.rejection() != null) {
      refuseReq(h, a.rejection());
      return;
    }
    querying.put(h.subSerial(), h);
    toDatabaseQueries.send(new DatabaseInbox.Query(h.connId(), h.tenant(), h.subId(), h.subSerial(), h.filters(),
        h.seqBelow(), h.count()), inbox);
  }

  // ---- NIP-77 NEG-OPEN: a read like a REQ's history, admitted by the same rules ----

  /** A NEG-OPEN is a read: the REQ rate limit and in-flight query cap apply to it as to a REQ. */
  private void admitSync(RootInbox.SyncOpen o) {
    long ticket = nextTicket++;
    admittingSync.put(ticket, o);
    toPolicy.send(new PolicyInbox.AdmitReq(ticket, o.connId(), o.tenant(), o.ip(), o.subId(), List.of(o.filter()),
        false), inbox);
  }

  private void syncAdmitted(RootInbox.ReqAdmitted a) {
    RootInbox.SyncOpen o = admittingSync.remove(a.ticket());
    if (a.rejection() != null) {
      refuseSync(o, a.rejection());
      return;
    }
    syncReading.put(a.ticket(), o);
    toDatabaseQueries.send(new DatabaseInbox.SyncRead(a.ticket(), o.tenant(), o.filter(),
        config.limits().negentropyMaxRecords()), inbox);
  }

  private void syncRead(RootInbox.SyncReadDone d) {
    RootInbox.SyncOpen o = syncReading.remove(d.ticket());
    if (o == null) {
      return; // failed back already: the engine that ran it was replaced
    }
    toPolicy.send(new PolicyInbox.QueryDone(o.connId()), inbox);
    if (d.error() != null) {
      refuseSync(o, d.error());
    } else if (d.items().tooMany()) {
      refuseSync(o, "blocked: too many records (" + d.items().matched() + " > "
          + config.limits().negentropyMaxRecords() + "), narrow the filter (since/until)");
    } else {
      toNetwork.sendOwed(new NetworkInbox.SyncItemsRead(o.connId(), o.subId(), o.session(), d.items().items(), null));
    }
  }

  private void refuseSync(RootInbox.SyncOpen o, String message) {
    toNetwork.sendOwed(new NetworkInbox.SyncItemsRead(o.connId(), o.subId(), o.session(), null, message));
  }

  /** database-engine died with history queries on it: their REQs are CLOSED (or COUNTs refused), the clients retry. */
  private void failQueries(String message) {
    for (RootInbox.History h : querying.values()) {
      refuseReq(h, message); // policy forgets its in-flight counts (QueriesLost)
    }
    querying.clear();
    syncReading.values().forEach(o -> refuseSync(o, message));
    syncReading.clear();
  }

  private void refuseReq(RootInbox.History h, String message) {
    toNetwork.sendOwed(new NetworkInbox.HistoryAnswer(h.connId(), h.subId(), h.subSerial(), h.count(), List.of(), 0,
        message));
  }

  /** Policy died with REQs waiting for admission: they are CLOSED, the clients retry. */
  private void failAdmissions() {
    for (RootInbox.History h : admitting.values()) {
      refuseReq(h, "error: policy restarted, please retry");
    }
    admitting.clear();
    admittingSync.values().forEach(o -> refuseSync(o, "error: policy restarted, please retry"));
    admittingSync.clear();
  }
}
