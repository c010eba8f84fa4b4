package dev.cairn.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An inbox's after-delivery action runs once after all the messages a sender sent in one task (the
 * listener flushes each socket's replies there: one write per connection per group commit).
 */
@ExtendWith(VertxExtension.class)
class InboxTest {
  record Note(String text) implements TreeMessage {}

  @Test
  void afterDeliveryRunsOnceAfterEachTasksMessages(Vertx vertx, VertxTestContext test) throws Exception {
    vertx.eventBus().registerCodec(new LocalCodec());
    List<String> seen = new CopyOnWriteArrayList<>();
    new Inbox<>(vertx, "inbox-test", Note.class, n -> seen.add(n.text()), () -> seen.add("|"));
    Channels channels = new Channels(vertx, 8, 0, name -> {});
    vertx.runOnContext(v -> {
      BoundedChannel<Note> ch = channels.open("test", "inbox-test");
      ch.trySend(new Note("a"));
      ch.trySend(new Note("b"));
      ch.trySend(new Note("c"));
      vertx.setTimer(50, t -> {
        ch.trySend(new Note("d"));
        vertx.setTimer(50, t2 -> test.verify(() -> {
          assertEquals(List.of("a", "b", "c", "|", "d", "|"), seen);
          test.completeNow();
        }));
      });
    });
    test.awaitCompletion(10, TimeUnit.SECONDS);
    if (test.failed()) {
      throw new AssertionError(test.causeOfFailure());
    }
  }
}
