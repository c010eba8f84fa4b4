package dev.cairn.outbox;

import dev.cairn.relay.TestDialect;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

final class TestRelayDirs {
  private TestRelayDirs() {}

  /** Deletes a relay's data directory and, on the MySQL test dialect, its databases. */
  static void delete(Path dir) throws IOException {
    TestDialect.drop(dir);
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
