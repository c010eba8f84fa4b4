package dev.cairn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.cairn.crash.RelayProcess;
import dev.cairn.store.ScratchDir;
import dev.cairn.store.Tmpfs;
import java.io.RandomAccessFile;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged relay and its two native libraries when the store volume is nearly full, and when
 * libsecp256k1 cannot load at all. Before: on a nearly full volume the copy of libsecp256k1 in the
 * scratch directory was cut short, and the relay said it was ready, then refused every EVENT as its
 * sig-workers died ("signature worker restarted") one after the other.
 */
class NativeLibrariesIT {
  @TempDir Path dir;

  @Test
  void aRelayWhoseLibsecp256k1CannotLoadDoesNotStart() throws Exception {
    Path notADirectory = Files.writeString(dir.resolve("not-a-directory"), "");
    Path log = dir.resolve("relay.log");
    RelayProcess relay = RelayProcess.launch(List.of("-Xmx256m", "-Dfr.acinq.secp256k1.tmpdir=" + notADirectory),
        Map.of(), config(), dir.resolve("data"), freePort(), log);
    try {
      assertEquals(1, relay.awaitExit(Duration.ofSeconds(60)), "exit code; log:\n" + Files.readString(log));
    } finally {
      relay.close();
    }
    String out = Files.readString(log);
    assertTrue(out.contains("cairn failed to start: libsecp256k1 could not be loaded"), out);
    assertTrue(!out.contains("is ready"), out);
  }

  @Test
  void onANearlyFullStoreVolumeTheRelayStartsWithItsLibrariesInTheSystemsTemporaryDirectory() throws Exception {
    Path volume = Files.createDirectories(dir.resolve("volume"));
    assumeTrue(Tmpfs.mount(volume, "size=16m"), "cannot mount a tmpfs here");
    try {
      Path data = volume.resolve("data");
      Files.createDirectories(data);
      try (RandomAccessFile filler = new RandomAccessFile(volume.resolve("filler").toFile(), "rw")) {
        filler.setLength(15L << 20); // tmpfs allocates on write: write it, or the space stays free
        byte[] mb = new byte[1 << 20];
        for (int i = 0; i < 15; i++) {
          filler.write(mb);
        }
      }
      Path javaTmp = Files.createDirectories(dir.resolve("java-tmp"));
      Path log = dir.resolve("full.log");
      // with its warm-up, whose stores find no room on the volume: the warm-up gives way, the start does not
      try (RelayProcess relay = RelayProcess.start(List.of("-Xmx256m", "-Djava.io.tmpdir=" + javaTmp),
          Map.of("CAIRN_STARTUP_WARMUP", "2s"), config(), data, freePort(), log)) {
        // ready means the sig-manager's self-test signed and verified a note with libsecp256k1
        String out = Files.readString(log);
        assertTrue(out.contains("start-up warm-up of the store skipped"), out); // 2,000 events do not fit in 1 MB
        assertTrue(out.contains("MiB free: sqlite-jdbc and libsecp256k1 copy their native libraries to the system's"
            + " temporary directory"), out);
        assertTrue(names(javaTmp).anyMatch(n -> n.contains("libsecp256k1")), "libsecp256k1's copy in java.io.tmpdir");
        assertTrue(names(ScratchDir.of(data)).noneMatch(n -> n.contains("libsecp256k1")), "none on the full volume");
      }
    } finally {
      assertTrue(Tmpfs.unmount(volume), "unmounting " + volume);
    }
  }

  private Path config() throws Exception {
    return Files.writeString(dir.resolve("cairn.json"), "{}");
  }

  private static Stream<String> names(Path dir) throws Exception {
    if (!Files.isDirectory(dir)) {
      return Stream.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).toList().stream();
    }
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
