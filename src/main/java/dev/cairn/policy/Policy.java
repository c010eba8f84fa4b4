package dev.cairn.policy;

import dev.cairn.admin.RelayAdmin;
import dev.cairn.config.CairnConfig;
import dev.cairn.metrics.CairnMetrics;
import dev.cairn.root.RootInbox;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.Supervised;
import dev.cairn.config.PolicyConfig;
import io.vertx.core.Future;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The policy node: the write gate after the signature pass, and the admission of new connections
 * and REQs. It dispatches its inbox to the {@link Gatekeeper} (the rules, in order) and, for an
 * event that passed the built-in rules of a tenant that has them, to the {@link ExternalJudges}
 * (Java policies, then the write-policy plugin) before the last rule, mute; then it answers root.
 * {@link RuleReloader} swaps the rules when the config file changes or on SIGHUP.
 *
 * <p>An event waiting for a plugin does not hold the node: its answer comes back as a callback on
 * this event loop, and other messages are handled meanwhile (answers to root need not be in order,
 * they carry their ticket).
 */
public final class Policy extends Supervised {
  private static final Logger LOG = Logger.getLogger(Policy.class.getName());
  private final Channels channels;
  private final CairnConfig config;
  private final PolicyMetrics metrics;
  private final RelayAdmin admin;
  private Gatekeeper gatekeeper;
  private RuleReloader reloader;
  private ExternalJudges externals;
  private BoundedChannel<RootInbox> toRoot;

  /** How often the rules and state of runtime tenants that are gone are dropped. */
  private static final long FORGET_GONE_TENANTS_MILLIS = 60_000;

  public Policy(Channels channels, CairnConfig config, CairnMetrics metrics, RelayAdmin admin, CrashReporter root) {
    super(root);
    this.admin = admin;
    this.channels = channels;
    this.config = config;
    this.metrics = new PolicyMetrics(metrics.registry());
  }

  @Override
  protected Future<?> startNode() {
    // Finding the Java policies loads classes (I/O): on a worker, before the node takes messages.
    return vertx.executeBlocking(() -> {
      JavaPolicies java = JavaPolicies.discover();
      java.prepare(config.policy(), false);
      return java;
    }).map(java -> {
      gatekeeper = new Gatekeeper(config.limits(), config.tenants(), config.policy(), metrics, admin)
          .withDirectory(config.directory());
      externals = new ExternalJudges(vertx, java, metrics);
      externals.configure(config.policy(), config.tenants().keySet());
      toRoot = channels.open("policy->root", Addresses.ROOT);
      new Inbox<>(vertx, Addresses.POLICY, PolicyInbox.class, this::handle);
      vertx.setPeriodic(FORGET_GONE_TENANTS_MILLIS, id -> gatekeeper.forgetGone());
      if (config.source().file() != null) {
        reloader = new RuleReloader(vertx, config.source(), config.raw(), this::reload, metrics,
            rules -> java.prepare(rules, true));
        reloader.start();
      }
      return null;
    });
  }

  private List<String> reload(PolicyConfig next) {
    List<String> changes = gatekeeper.update(next);
    externals.configure(next, config.tenants().keySet());
    return changes;
  }

  @Override
  public Future<?> stop() {
    if (reloader != null) {
      reloader.stop();
    }
    if (externals != null) {
      externals.close();
    }
    return Future.succeededFuture();
  }

  private void handle(PolicyInbox msg) {
    if (msg instanceof PolicyInbox.Judge j) {
      judge(j);
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

  /** The built-in rules, then the external judges when the tenant has any, then mute. */
  private void judge(PolicyInbox.Judge j) {
    long now = System.currentTimeMillis();
    Verdict v = gatekeeper.screen(j.tenant(), j.event(), j.authedPubkey(), j.ip(), now, System.nanoTime());
    PolicyRules rules = gatekeeper.rules(j.tenant());
    if (v != null || rules == null || !ExternalJudges.any(rules.settings())) {
      judged(j, v != null ? v : gatekeeper.mute(j.tenant(), j.event()));
      return;
    }
    externals.judge(j.tenant(), rules.settings(), j.event(), j.ip(), j.authedPubkey(), now / 1000)
        .onComplete(ar -> {
          Verdict x = ar.succeeded() ? ar.result() : null;
          if (ar.failed()) {
            LOG.log(Level.WARNING, "judging event " + j.event().id() + " failed; it is refused", ar.cause());
            x = Verdict.reject(ExternalJudges.JAVA_RULE, "error: internal error");
          }
          if (x != null) {
            metrics.rejected(j.tenant(), x.rule());
          } else {
            x = gatekeeper.mute(j.tenant(), j.event());
          }
          judged(j, x);
        });
  }

  private void judged(PolicyInbox.Judge j, Verdict v) {
    boolean muted = v != null && v.muted();
    toRoot.sendOwed(new RootInbox.Judged(j.ticket(), v == null || muted ? null : v.message(), muted));
  }
}
