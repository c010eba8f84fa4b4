package dev.cairn.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cairn.nostr.NostrEvent;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code store.thread_priority} (decision 0017): the WAL checkpoint and search index threads run at
 * nice 10, set for real through the JNI library; nothing changes with the setting off, nor on threads
 * that did not ask.
 */
class ThreadPriorityTest extends StoreTestBase {
  @BeforeAll
  static void built() {
    // built by src/main/c/build.sh where the platform has gcc and a JDK's jni.h (this project's CI does)
    assumeTrue(ThreadPriorityTest.class.getResource(NativeResource.RESOURCE_DIR + NativeResource.platform() + "/"
        + ThreadPriority.LIBRARY) != null, "no thread-priority build for this platform");
  }

  @Test
  void aBackgroundThreadRunsAtNiceTenAndOnlyIt() throws Exception {
    int parent = niceOf("thread-self");
    ThreadPriority priority = new ThreadPriority(true);
    AtomicInteger lowered = new AtomicInteger(Integer.MIN_VALUE);
    AtomicInteger untouched = new AtomicInteger(Integer.MIN_VALUE);
    run(() -> {
      priority.background();
      priority.background(); // once per thread: the second call changes nothing
      lowered.set(niceOf("thread-self"));
    });
    run(() -> untouched.set(niceOf("thread-self")));
    assertEquals(ThreadPriority.BACKGROUND_NICE, lowered.get());
    assertEquals(parent, untouched.get(), "a thread that did not ask keeps its parent's priority");
    assertEquals(parent, niceOf("thread-self"), "the calling thread only: the test's thread is as it was");
  }

  @Test
  void offLeavesTheThreadAsItWas() throws Exception {
    int parent = niceOf("thread-self");
    AtomicInteger nice = new AtomicInteger(Integer.MIN_VALUE);
    run(() -> {
      new ThreadPriority(false).background();
      nice.set(niceOf("thread-self"));
    });
    assertEquals(parent, nice.get());
  }

  @Test
  void theUpkeepsCheckpointAndSearchThreadsRunAtTheBackgroundPriority() throws Exception {
    Set<String> before = taskIds();
    Vertx vertx = Vertx.vertx();
    SqliteUpkeep upkeep = new SqliteUpkeep(vertx, "pt", new ThreadPriority(true));
    try {
      List<NostrEvent> batch = new ArrayList<>();
      for (long i = 1; i <= 200; i++) {
        batch.add(NostrEvent.of(Ev.id(i * 0x9E3779B97F4A7C15L), Ev.id(i), NOW - i, 1, List.of(), "searchable words " + i,
            Ev.SIG));
      }
      store.persistBatch(batch, NOW);
      vertx.runOnContext(v -> upkeep.afterWrite(store));
      // the upkeep's threads are the ones that appeared since (thread names are cut at 15 characters)
      Map<String, Integer> seen = Map.of();
      long until = System.nanoTime() + 20_000_000_000L;
      while (System.nanoTime() < until) {
        seen = newThreads(before);
        if (Integer.valueOf(10).equals(seen.get("cairn-db-checkp")) && Integer.valueOf(10).equals(seen.get("cairn-search-pt"))) {
          break;
        }
        Thread.sleep(50);
      }
      assertEquals(ThreadPriority.BACKGROUND_NICE, seen.get("cairn-db-checkp"), "checkpoint thread: " + seen);
      assertEquals(ThreadPriority.BACKGROUND_NICE, seen.get("cairn-search-pt"), "search thread: " + seen);
    } finally {
      upkeep.close().toCompletionStage().toCompletableFuture().get();
      vertx.close().toCompletionStage().toCompletableFuture().get();
    }
  }

  private static void run(Runnable body) throws InterruptedException {
    Thread t = new Thread(body, "priority-test");
    t.start();
    t.join();
  }

  private static Set<String> taskIds() throws IOException {
    try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
      return tasks.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  /** Threads started since {@code before}: name (as the kernel keeps it) to nice value. */
  private static Map<String, Integer> newThreads(Set<String> before) throws IOException {
    Map<String, Integer> out = new HashMap<>();
    for (String tid : taskIds()) {
      if (!before.contains(tid)) {
        try {
          out.put(Files.readString(Path.of("/proc/self/task", tid, "comm")).strip(), niceOf("self/task/" + tid));
        } catch (IOException gone) {
          // the thread ended meanwhile
        }
      }
    }
    return out;
  }

  /** Field 19 of /proc/{@code which}/stat: the nice value (after the name in parentheses, which may hold spaces). */
  private static int niceOf(String which) {
    try {
      String stat = Files.readString(Path.of("/proc", which, "stat"));
      String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return Integer.parseInt(fields[16]);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
