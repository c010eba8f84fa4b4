package dev.cairn.store.outbox;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;

/**
 * Hands a result back on the Vert.x context that asked for it: store work finishes on writer threads
 * (SQLite) or on the SQL client's context (MySQL), but callers keep state that only their own context
 * touches.
 */
public final class CallerContext {
  private CallerContext() {}

  /** {@code result}, completing on {@code caller} (null: wherever it completes). */
  public static <T> Future<T> on(Context caller, Future<T> result) {
    if (caller == null) {
      return result;
    }
    Promise<T> promise = Promise.promise();
    result.onComplete(ar -> complete(caller, promise, ar));
    return promise.future();
  }

  /** Completes {@code promise} with {@code ar} on {@code caller} (null: here). */
  public static <T> void complete(Context caller, Promise<T> promise, AsyncResult<T> ar) {
    if (caller == null || Vertx.currentContext() == caller) {
      promise.handle(ar);
    } else {
      caller.runOnContext(v -> promise.handle(ar));
    }
  }
}
