package dev.cairn.store.feed;

import io.vertx.core.Future;
import java.util.function.Supplier;

/**
 * The batch loop of a retention sweep, the same for both dialects: run a batch, go on while a batch
 * came back full and the cap is not reached; then read the bounds. Batches run one after the other,
 * each its own short transaction, so writes interleave and no statement is as large as the backlog.
 */
public final class SweepLoop {
  private SweepLoop() {}

  private record Progress(int deleted, int batches) {}

  /** Runs {@code batchStep} (rows it deleted, at most {@code batch}) up to {@code maxBatches} times. */
  public static Future<SweepResult> run(Supplier<Future<Integer>> batchStep, int batch, int maxBatches,
      Supplier<Future<FeedBounds>> bounds, String scope) {
    return step(batchStep, batch, maxBatches, 0, 0)
        .compose(done -> bounds.get().map(b -> new SweepResult(done.deleted(), done.batches(), b, scope)));
  }

  private static Future<Progress> step(Supplier<Future<Integer>> batchStep, int batch, int maxBatches, int batches,
      int deleted) {
    return batchStep.get().compose(n -> {
      int total = deleted + n;
      int done = batches + 1;
      if (n >= batch && done < maxBatches) {
        return step(batchStep, batch, maxBatches, done, total);
      }
      return Future.succeededFuture(new Progress(total, done));
    });
  }
}
