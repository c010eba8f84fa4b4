package dev.cairn.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A child whose fresh instance fails to start (a listener whose port is not free again yet) is deployed
 * again until one starts: it never stays down after a redeploy that failed once.
 */
@ExtendWith(VertxExtension.class)
class ChildTest {
  /** A node whose start fails, as a listener's does when its port is not free yet, or one that starts. */
  static final class Flaky extends VerticleBase {
    private final boolean fails;

    Flaky(boolean fails) {
      this.fails = fails;
    }

    @Override
    public Future<?> start() {
      return fails ? Future.failedFuture(new java.net.BindException("Address already in use")) : Future.succeededFuture();
    }
  }

  @Test
  void aRedeployThatFailsIsTriedAgainUntilTheChildIsUp(Vertx vertx, VertxTestContext test) throws Exception {
    AtomicInteger deployments = new AtomicInteger();
    // the first deployment starts, the next three fail (the redeploy and two of its retries), the fifth starts
    Child child = new Child("flaky", "child-test", () -> {
      int n = deployments.incrementAndGet();
      return new Flaky(n >= 2 && n <= 4);
    });
    Channels channels = new Channels(vertx, 8, 0, name -> {});
    vertx.runOnContext(v -> child.deploy(vertx)
        .compose(id -> {
          Future<Void> redeployed = child.redeploy(vertx, channels, "a test", () -> {});
          test.verify(() -> assertFalse(child.up(), "down while it is being redeployed"));
          return redeployed;
        })
        .onComplete(test.succeeding(x -> test.verify(() -> {
          assertTrue(child.up(), "up after the failed tries");
          assertEquals(5, deployments.get(), "deployed once, then tried until the fifth started");
          test.completeNow();
        }))));
    // 100 + 200 + 400 ms of waiting between the tries
    test.awaitCompletion(10, TimeUnit.SECONDS);
    if (test.failed()) {
      throw new AssertionError(test.causeOfFailure());
    }
  }
}
