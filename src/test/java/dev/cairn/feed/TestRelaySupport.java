package dev.cairn.feed;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** File helpers for the feed tests. */
final class TestRelaySupport {
  private static final int ATTEMPTS = 10;

  private TestRelaySupport() {}

  /**
   * Deletes {@code dir} and everything under it. A browser's helper processes can still add or remove
   * files in its profile for a moment after the browser exited, so a walk that trips over a vanished file
   * is done again (a few times, 100 ms apart) instead of failing the test in its cleanup.
   */
  static void deleteTree(Path dir) throws IOException {
    for (int attempt = 1; Files.exists(dir); attempt++) {
      try (Stream<Path> s = Files.walk(dir)) {
        s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (UncheckedIOException | java.nio.file.NoSuchFileException e) {
        if (attempt >= ATTEMPTS) {
          throw e instanceof UncheckedIOException u ? u.getCause() : (IOException) e;
        }
      }
      if (Files.exists(dir)) {
        if (attempt >= ATTEMPTS) {
          throw new IOException("could not delete " + dir + " after " + ATTEMPTS + " walks");
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted deleting " + dir, e);
        }
      }
    }
  }
}
