package dev.cairn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.crash.RelayProcess;
import dev.cairn.store.ScratchDir;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A relay killed with SIGKILL leaves nothing in the system's temporary directory: its warm-up store,
 * its native library copies and Vert.x's file cache are in the store's scratch directory, emptied by
 * the next relay on the store (before, each kill left ~2.4 MB of libraries in /tmp, and a kill during
 * the warm-up ~50 MB of warm-up store).
 */
class ScratchDirIT {
  @TempDir Path dir;

  @Test
  void aRelayKilledInItsWarmupLeavesNothingInTmpAndTheNextStartClearsWhatItLeft() throws Exception {
    Path javaTmp = Files.createDirectories(dir.resolve("java-tmp"));
    Path data = dir.resolve("data");
    Path scratch = ScratchDir.of(data);
    Path config = Files.writeString(dir.resolve("cairn.json"), "{}");
    List<String> jvm = List.of("-Xmx256m", "-Djava.io.tmpdir=" + javaTmp);

    RelayProcess doomed = RelayProcess.launch(jvm, Map.of("CAIRN_STARTUP_WARMUP", "30s"), config, data, freePort(),
        dir.resolve("doomed.log"));
    try {
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (warmupStores(scratch).isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertFalse(warmupStores(scratch).isEmpty(), "no warm-up store in " + scratch + " within 60 s; log:\n"
          + Files.readString(dir.resolve("doomed.log")));
      Thread.sleep(500); // into the warm-up's writes
    } finally {
      doomed.kill9();
    }
    Set<String> left = names(scratch);
    assertTrue(left.stream().anyMatch(n -> n.startsWith("warmup")), "the killed relay's warm-up store: " + left);
    assertTrue(left.stream().anyMatch(n -> n.contains("libsqlitejdbc")), "sqlite-jdbc's library copy: " + left);
    assertTrue(left.stream().anyMatch(n -> n.contains("libsecp256k1")), "libsecp256k1's copy: " + left);
    assertEquals(Set.of(), names(javaTmp), "what the killed relay left in java.io.tmpdir");

    try (RelayProcess next = RelayProcess.start(jvm, Map.of(), config, data, freePort(), dir.resolve("next.log"))) {
      Set<String> now = names(scratch);
      Set<String> stale = left.stream().filter(now::contains).collect(Collectors.toSet());
      assertEquals(Set.of(), stale, "the killed relay's files after the next start (now: " + now + ")");
    }
    assertEquals(Set.of(), names(javaTmp), "what two relays left in java.io.tmpdir");
    assertTrue(warmupStores(scratch).isEmpty(), "a stopped relay's scratch directory: " + names(scratch));
  }

  private static Set<String> warmupStores(Path scratch) throws Exception {
    return names(scratch).stream().filter(n -> n.startsWith("warmup")).collect(Collectors.toSet());
  }

  private static Set<String> names(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) {
      return Set.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
