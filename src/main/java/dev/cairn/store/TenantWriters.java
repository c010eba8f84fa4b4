package dev.cairn.store;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The writer side of the tenant stores: one lane per tenant, all lanes over a few writer threads
 * ({@code store.writers}). A tenant's writes run one at a time and in the order they were asked for
 * (its group commits, outbox settles, feed inserts, sweeps); different tenants' writes run side by
 * side, so a slow tenant DB delays only its own. A lane holds a thread for at most {@link #TURN}
 * tasks before the other lanes get theirs. Results complete on the engine's context.
 */
public final class TenantWriters {
  /** Tasks a lane runs before it goes to the back of the pool's queue. */
  static final int TURN = 8;

  private final class Lane {
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private boolean scheduled;

    void add(Runnable task) {
      boolean schedule;
      synchronized (this) {
        tasks.add(task);
        schedule = !scheduled;
        scheduled = true;
      }
      if (schedule) {
        pool.execute(this::run);
      }
    }

    private void run() {
      for (int i = 0; ; i++) {
        if (i == TURN && !pool.isShutdown()) {
          pool.execute(this::run); // still busy: the other tenants first
          return;
        }
        Runnable next;
        synchronized (this) {
          next = tasks.poll();
          if (next == null) {
            scheduled = false;
            return;
          }
        }
        next.run();
      }
    }
  }

  private final Context context;
  private final ExecutorService pool;
  private final Map<String, Lane> lanes = new ConcurrentHashMap<>();

  /** Writer threads named {@code <name>-<n>}; results are delivered on {@code context}. */
  public TenantWriters(Context context, String name, int threads) {
    this.context = context;
    AtomicInteger n = new AtomicInteger();
    this.pool = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, name + "-" + n.getAndIncrement());
      t.setDaemon(true);
      return t;
    });
  }

  /** Runs {@code task} on {@code tenant}'s lane, after every task asked for before on it. */
  public <T> Future<T> execute(String tenant, Callable<T> task) {
    Promise<T> promise = Promise.promise();
    lanes.computeIfAbsent(tenant, t -> new Lane()).add(() -> {
      try {
        T result = task.call();
        context.runOnContext(v -> promise.complete(result));
      } catch (Throwable t) {
        context.runOnContext(v -> promise.fail(t));
      }
    });
    return promise.future();
  }

  /** Lets the queued tasks finish and stops the threads (blocking: not on an event loop). */
  public void shutdown(long timeoutMillis) throws InterruptedException {
    pool.shutdown();
    pool.awaitTermination(timeoutMillis, TimeUnit.MILLISECONDS);
  }
}
