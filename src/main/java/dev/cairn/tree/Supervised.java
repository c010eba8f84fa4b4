package dev.cairn.tree;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;

/**
 * Base of every child node: reports an uncaught failure on its own context to its manager, which
 * redeploys it. A node never restarts itself.
 */
public abstract class Supervised extends VerticleBase {
  private final CrashReporter manager;

  protected Supervised(CrashReporter manager) {
    this.manager = manager;
  }

  @Override
  public final Future<?> start() throws Exception {
    Context ctx = context;
    ctx.exceptionHandler(t -> manager.crashed(this, t));
    return startNode();
  }

  protected abstract Future<?> startNode() throws Exception;

  /** How a child tells its manager it died: called on the child's context. */
  @FunctionalInterface
  public interface CrashReporter {
    void crashed(Supervised child, Throwable cause);
  }
}
