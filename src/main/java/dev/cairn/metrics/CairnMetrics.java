package dev.cairn.metrics;

import dev.cairn.tree.ChannelMetrics;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The project's own meters, named as CONTRACT section 6 says (names are the interface). One
 * instance per server, shared by the nodes: meters are thread-safe, and gauges read atomics.
 */
public final class CairnMetrics implements ChannelMetrics {
  private final MeterRegistry registry;
  private final Timer sigVerify;
  private final Timer reqHistory;
  private final Timer storeCommit;
  private final DistributionSummary storeCommitEvents;
  private final Meters meters;

  public CairnMetrics(MeterRegistry registry) {
    this.registry = registry;
    this.meters = new Meters(registry);
    this.sigVerify = Timer.builder("cairn_sig_verify_seconds")
        .description("Time to hash and BIP-340 verify one event in a sig-worker")
        .publishPercentiles(0.5, 0.99)
        .register(registry);
    this.reqHistory = Timer.builder("cairn_req_history_seconds")
        .description("From a REQ's registration to its stored events answered: admission, the history query"
            + " and its results back at the network manager (not the write to the socket)")
        .publishPercentiles(0.5, 0.9, 0.99)
        .register(registry);
    this.storeCommit = Timer.builder("cairn_store_commit_seconds")
        .description("One group commit on its tenant's writer lane, from taking its batch to its outcome")
        .publishPercentiles(0.5, 0.99)
        .register(registry);
    this.storeCommitEvents = DistributionSummary.builder("cairn_store_commit_events")
        .description("Events in one group commit")
        .publishPercentiles(0.5, 0.99)
        .register(registry);
  }

  /** One group commit of {@code events} events took {@code nanos} (database-engine's {@code CommitMeter}). */
  public void storeCommitted(long nanos, int events) {
    storeCommit.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
    storeCommitEvents.record(events);
  }

  public MeterRegistry registry() {
    return registry;
  }

  /** Removes every meter labelled {@code tenant} (the start-up warm-up's tenant, once it is gone). */
  public void forgetTenant(String tenant) {
    registry.getMeters().stream().filter(m -> tenant.equals(m.getId().getTag("tenant"))).toList()
        .forEach(registry::remove);
  }

  public Timer sigVerify() {
    return sigVerify;
  }

  /** One REQ's history answered, {@code nanos} after it was registered. */
  public void reqHistoryAnswered(long nanos) {
    reqHistory.record(nanos, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /** {@code result}: accepted, duplicate, invalid, blocked, rate-limited, restricted, auth-required, pow, error, muted. */
  public void eventReceived(String tenant, String result) {
    meters.counter("cairn_events_received_total", "tenant", tenant, "result", result).increment();
  }

  public void eventStored(String tenant) {
    meters.counter("cairn_events_stored_total", "tenant", tenant).increment();
  }

  public AtomicLong connections(String tenant) {
    return meters.tenantGauge("cairn_connections", tenant);
  }

  public AtomicLong subscriptions(String tenant) {
    return meters.tenantGauge("cairn_subscriptions", tenant);
  }

  /** NIP-77 negentropy sync sessions open (their items being read included). */
  public AtomicLong negentropySessions(String tenant) {
    return meters.tenantGauge("cairn_negentropy_sessions", tenant);
  }

  /** One live event received from another pod over NATS, before ordering (CONTRACT section 7). */
  public void liveRemote(String tenant) {
    meters.counter("cairn_live_remote_total", "tenant", tenant).increment();
  }

  /** Messages queued for the WebSocket clients of listener {@code listener} (network/OutboundBudget). */
  public AtomicLong outboundMessagesQueued(int listener) {
    return meters.gauge("cairn_outbound_messages_queued", "listener", Integer.toString(listener));
  }

  /** Answer bytes (history events, replies) waiting for one listener's WebSocket clients. */
  public AtomicLong outboundAnswerBytesQueued(int listener) {
    return meters.gauge("cairn_outbound_answer_bytes_queued", "listener", Integer.toString(listener));
  }

  /** A slow consumer closed ({@code kind}: ws or sse), CONTRACT section 7. */
  public void slowConsumerClosed(String kind) {
    meters.counter("cairn_slow_consumer_closed_total", "kind", kind).increment();
  }

  /** A REQ or COUNT not run: its connection closed while it waited for its turn at the store. */
  public void queryDropped(String tenant) {
    meters.counter("cairn_queries_dropped_total", "tenant", tenant).increment();
  }

  /** A REQ or COUNT stopped by {@code limits.query_budget}. */
  public void queryBudgetExceeded(String tenant) {
    meters.counter("cairn_query_budget_exceeded_total", "tenant", tenant).increment();
  }

  @Override
  public void channelFull(String channel) {
    meters.counter("cairn_channel_full_total", "channel", channel).increment();
  }

}
