package dev.cairn.bench.jmh;

import dev.cairn.bench.gen.GenerateEvents;
import dev.cairn.nostr.EventParser;
import dev.cairn.nostr.NostrEvent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Generated, signed events for the JMH benchmarks (deterministic: fixed seed and base time). */
public final class Fixtures {
  private Fixtures() {}

  /** {@code count} event JSON lines from the benchmark generator. */
  public static List<String> lines(int count, int authors, String mix) {
    try {
      Path f = Files.createTempFile("cairn-jmh", ".jsonl");
      try {
        String[] args = {"--count", Integer.toString(count), "--authors", Integer.toString(authors), "--seed", "99",
            "--base-time", Long.toString(System.currentTimeMillis() / 1000 - 86_400), "--out", f.toString(),
            "--verify-sample", "0", "--mix", mix};
        GenerateEvents.generate(args);
        return Files.readAllLines(f, StandardCharsets.UTF_8);
      } finally {
        Files.deleteIfExists(f);
        Files.deleteIfExists(Path.of(f + ".meta.json"));
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public static List<String> lines(int count) {
    return lines(count, 200, "1:60,7:25,0:3,3:3,30023:9");
  }

  /** The same events parsed by the relay's own parser. */
  public static List<NostrEvent> parsed(List<String> lines) {
    List<NostrEvent> out = new ArrayList<>(lines.size());
    for (String l : lines) {
      try {
        out.add(EventParser.parse(l));
      } catch (Exception e) {
        throw new IllegalStateException("the relay's parser refuses a generated event: " + l, e);
      }
    }
    return out;
  }
}
