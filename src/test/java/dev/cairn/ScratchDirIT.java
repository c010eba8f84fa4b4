package dev.cairn;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
      // killed once its warm-up store and both library copies are there (the warm-up runs for 30 s)
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (!holdsAll(names(scratch)) && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
    } finally {
      doomed.kill9();
    }
    Set<String> left = names(scratch);
    assertTrue(holdsAll(left), "the killed relay's warm-up store and sqlite-jdbc's and libsecp256k1's library copies in "
        + scratch + ": " + left + "; log:\n" + Files.readString(dir.resolve("doomed.log")));
    assertEquals(Set.of(), names(javaTmp), "what the killed relay left in java.io.tmpdir");

    try (RelayProcess next = RelayProcess.start(jvm, Map.of(), config, data, freePort(), dir.resolve("next.log"))) {
      Set<String> now = names(scratch);
      Set<String> stale = left.stream().filter(now::contains).collect(Collectors.toSet());
      assertEquals(Set.of(), stale, "the killed relay's files after the next start (now: " + now + ")");
    }
    assertEquals(Set.of(), names(javaTmp), "what two relays left in java.io.tmpdir");
    assertTrue(warmupStores(scratch).isEmpty(), "a stopped relay's scratch directory: " + names(scratch));
  }

  private static boolean holdsAll(Set<String> names) {
    return names.stream().anyMatch(n -> n.startsWith("warmup")) && names.stream().anyMatch(n -> n.contains("libsqlitejdbc"))
        && names.stream().anyMatch(n -> n.contains("libsecp256k1"));
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
