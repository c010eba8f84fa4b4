package dev.cairn.tree;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One child node of a manager, deployed from its factory at a fixed address, and redeployed the same
 * way when it dies or stalls — the one redeploy of the tree, for every manager and every child:
 * every channel to the child's address is suspended (its senders hold what they have, as for a full
 * channel, so nothing is sent to an address without a consumer), the manager fails back what the
 * dead child held, a fresh instance is deployed from the factory (its own children come back with
 * it), and the channels resume with full credit, each sender told that its in-flight messages were
 * lost ({@link BoundedChannel#onReset}). A deployment that fails is tried again, after 100 ms doubling
 * up to 5 s, until one succeeds: a listener whose port was not yet free again (its old server socket
 * still closing: seen once in a CI run, the relay then deaf for good) binds on a later try, and its
 * channels stay suspended meanwhile. Used on the manager's context only (whose undeploy cancels the
 * timers of the tries still to come).
 */
public final class Child {
  private static final Logger LOG = Logger.getLogger(Child.class.getName());
  private static final long FIRST_RETRY_MS = 100;
  private static final long MAX_RETRY_MS = 5_000;

  private final String name;
  private final String address;
  private final Supplier<? extends io.vertx.core.Deployable> factory;
  private final DeploymentOptions options;
  private String deploymentId;
  private boolean restarting;

  public Child(String name, String address, Supplier<? extends io.vertx.core.Deployable> factory) {
    this(name, address, factory, new DeploymentOptions());
  }

  public Child(String name, String address, Supplier<? extends io.vertx.core.Deployable> factory,
      DeploymentOptions options) {
    this.name = name;
    this.address = address;
    this.factory = factory;
    this.options = options;
  }

  public String name() {
    return name;
  }

  public String address() {
    return address;
  }

  /** True while deployed and not being redeployed. */
  public boolean up() {
    return deploymentId != null && !restarting;
  }

  /** The first deployment. */
  public Future<String> deploy(Vertx vertx) {
    return vertx.deployVerticle(factory.get(), options).onSuccess(id -> deploymentId = id);
  }

  /**
   * Redeploys the child (a second call while one runs does nothing). {@code failBack} runs once the
   * channels to it are suspended: the manager answers what the dead child held.
   */
  public Future<Void> redeploy(Vertx vertx, Channels channels, String cause, Runnable failBack) {
    if (restarting || deploymentId == null) {
      return Future.succeededFuture();
    }
    restarting = true;
    LOG.log(Level.SEVERE, name + " died (" + cause + "), redeploying it");
    channels.suspend(address);
    String old = deploymentId;
    deploymentId = null;
    try {
      failBack.run();
    } catch (RuntimeException e) {
      LOG.log(Level.SEVERE, "failing back what " + name + " held", e);
    }
    return vertx.undeploy(old).recover(t -> {
      LOG.log(Level.WARNING, "undeploying the dead " + name + " failed; deploying a fresh one anyway", t);
      return Future.succeededFuture();
    }).compose(x -> deployUntilUp(vertx, FIRST_RETRY_MS, 1))
        .onSuccess(id -> {
          restarting = false;
          channels.reset(address);
          LOG.info(name + " redeployed");
        })
        .mapEmpty();
  }

  /** Deploys a fresh instance, and again after {@code delayMs} (doubling, at most 5 s) until one is up. */
  private Future<String> deployUntilUp(Vertx vertx, long delayMs, int attempt) {
    return deploy(vertx).recover(t -> {
      if (attempt == 1) {
        LOG.log(Level.SEVERE, "could not redeploy " + name + "; trying again in " + delayMs + " ms", t);
      } else {
        LOG.severe("could not redeploy " + name + " (attempt " + attempt + ": " + t + "); trying again in "
            + delayMs + " ms");
      }
      Promise<Void> later = Promise.promise();
      vertx.setTimer(delayMs, id -> later.complete());
      return later.future().compose(x -> deployUntilUp(vertx, Math.min(delayMs * 2, MAX_RETRY_MS), attempt + 1));
    });
  }
}
