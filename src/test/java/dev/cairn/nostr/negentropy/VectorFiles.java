package dev.cairn.nostr.negentropy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Reads the reference vectors under src/test/resources/negentropy (see the README there). */
final class VectorFiles {
  private VectorFiles() {}

  /** Non-comment lines of {@code name}, split on single spaces (an empty field stays empty). */
  static List<String[]> lines(String name) {
    InputStream in = VectorFiles.class.getResourceAsStream("/negentropy/" + name);
    if (in == null) {
      throw new IllegalStateException("missing test resource negentropy/" + name);
    }
    List<String[]> out = new ArrayList<>();
    try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      for (String line = r.readLine(); line != null; line = r.readLine()) {
        if (!line.startsWith("#")) {
          out.add(line.split(" ", -1));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }

  static byte[] hex(String s) {
    return NegentropyHex.decode(s);
  }

  /**
   * Fails unless the two hex messages are equal, naming the first differing byte and showing a
   * short window around it instead of two multi-kilobyte strings.
   */
  static void assertSameMessage(String expected, String actual, String context) {
    if (expected.equals(actual)) {
      return;
    }
    int i = 0;
    while (i < expected.length() && i < actual.length() && expected.charAt(i) == actual.charAt(i)) {
      i++;
    }
    int from = Math.max(0, i - 16) & ~1;
    throw new AssertionError(
        context
            + ": messages differ at byte "
            + i / 2
            + " (expected "
            + expected.length() / 2
            + " bytes, got "
            + actual.length() / 2
            + "): expected ..."
            + window(expected, from)
            + "..., got ..."
            + window(actual, from)
            + "...");
  }

  private static String window(String hex, int from) {
    return hex.substring(Math.min(from, hex.length()), Math.min(from + 64, hex.length()));
  }
}
