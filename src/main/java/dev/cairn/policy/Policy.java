package dev.cairn.policy;

import dev.cairn.config.CairnConfig;
import dev.cairn.metrics.CairnMetrics;
import dev.cairn.root.RootInbox;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.Supervised;
import io.vertx.core.Future;

/**
 * The policy node: the write gate after the signature pass, and the admission of new connections
 * and REQs. It only dispatches its inbox to the {@link Gatekeeper} (the rules, in order) and
 * answers root; {@link RuleReloader} swaps the rules when the config file changes or on SIGHUP.
 */
public final class Policy extends Supervised {
  private final Channels channels;
  private final CairnConfig config;
  private final PolicyMetrics metrics;
  private Gatekeeper gatekeeper;
  private RuleReloader reloader;
  private BoundedChannel<RootInbox> toRoot;

  public Policy(Channels channels, CairnConfig config, CairnMetrics metrics, CrashReporter root) {
    super(root);
    this.channels = channels;
    this.config = config;
    this.metrics = new PolicyMetrics(metrics.registry());
  }

  @Override
  protected Future<?> startNode() {
    gatekeeper = new Gatekeeper(config.limits(), config.tenants(), config.policy(), metrics);
    toRoot = channels.open("policy->root", Addresses.ROOT);
    new Inbox<>(vertx, Addresses.POLICY, PolicyInbox.class, this::handle);
    if (config.source().file() != null) {
      reloader = new RuleReloader(vertx, config.source(), config.raw(), gatekeeper::update, metrics);
      reloader.start();
    }
    return Future.succeededFuture();
  }

  @Override
  public Future<?> stop() {
    if (reloader != null) {
      reloader.stop();
    }
    return Future.succeededFuture();
  }

  private void handle(PolicyInbox msg) {
    if (msg instanceof PolicyInbox.Judge j) {
      Verdict v = gatekeeper.judge(j.tenant(), j.event(), j.authedPubkey(), j.ip(), System.currentTimeMillis(),
          System.nanoTime());
      boolean muted = v != null && v.muted();
      toRoot.sendOwed(new RootInbox.Judged(j.ticket(), v == null || muted ? null : v.message(), muted));
    } else if (msg instanceof PolicyInbox.AdmitConnection a) {
      Verdict v = gatekeeper.admitConnection(a.tenant(), a.ip(), System.nanoTime());
      toRoot.sendOwed(new RootInbox.ConnectionAdmitted(a.connId(), v == null ? null : v.message()));
    } else if (msg instanceof PolicyInbox.AdmitReq r) {
      Verdict v = gatekeeper.admitReq(r.tenant(), r.ip(), r.connId(), System.nanoTime());
      toRoot.sendOwed(new RootInbox.ReqAdmitted(r.ticket(), v == null ? null : v.message()));
    } else if (msg instanceof PolicyInbox.QueryDone d) {
      gatekeeper.queryDone(d.connId());
    } else if (msg instanceof PolicyInbox.QueriesLost) {
      gatekeeper.queriesLost();
    }
  }
}
