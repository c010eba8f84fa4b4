package dev.cairn.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
    AtomicReference<BoundedChannel<Note>> channel = new AtomicReference<>();
    new Inbox<>(vertx, "inbox-test", Note.class, n -> seen.add(n.text()), () -> {
      seen.add("|");
      if (seen.size() == 4) {
        channel.get().trySend(new Note("d")); // a later task of the sender: a delivery of its own
      } else if (seen.size() == 6) {
        test.verify(() -> {
          assertEquals(List.of("a", "b", "c", "|", "d", "|"), seen);
          test.completeNow();
        });
      }
    });
    Channels channels = new Channels(vertx, 8, 0, name -> {});
    vertx.runOnContext(v -> {
      BoundedChannel<Note> ch = channels.open("test", "inbox-test");
      channel.set(ch);
      ch.trySend(new Note("a"));
      ch.trySend(new Note("b"));
      ch.trySend(new Note("c"));
    });
    test.awaitCompletion(10, TimeUnit.SECONDS);
    if (test.failed()) {
      throw new AssertionError(test.causeOfFailure());
    }
  }
}
