package dev.cairn.store.feed;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * Hands a result back on the Vert.x context that asked for it. A store's futures complete where its
 * work finished (a worker lane's context, the SQL client's connection context); the feed engine keeps
 * its state unsynchronized on its own event loop, so it must see them there.
 */
public final class CallerContext {
  private CallerContext() {}

  /** {@code f}, completing on the current context (as is when called outside Vert.x: tests). */
  public static <T> Future<T> deliver(Future<T> f) {
    Context caller = Vertx.currentContext();
    if (caller == null) {
      return f;
    }
    Promise<T> p = Promise.promise();
    f.onComplete(ar -> {
      if (Vertx.currentContext() == caller) {
        p.handle(ar);
      } else {
        caller.runOnContext(v -> p.handle(ar));
      }
    });
    return p.future();
  }
}
