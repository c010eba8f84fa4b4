package dev.cairn.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.bench.gen.BenchSigner;
import dev.cairn.bench.gen.Canon;
import dev.cairn.bench.gen.GenerateEvents;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator's output verifies with libsecp256k1 and is byte-identical for one seed. */
class GeneratorSelfCheckTest {

  @Test
  void canonicalSerializationEscapesExactlySevenCharacters() {
    byte[] s = Canon.serialize("ab", 1, 1, List.of(List.of("t", "x\"y")), "a\nb\"c\\d\re\tf\bg\fh/é🌋\u007f");
    assertEquals("[0,\"ab\",1,1,[[\"t\",\"x\\\"y\"]],\"a\\nb\\\"c\\\\d\\re\\tf\\bg\\fh/é🌋\u007f\"]",
        new String(s, StandardCharsets.UTF_8));
  }

  @Test
  void everyGeneratedEventVerifiesAndOutputIsDeterministic(@TempDir Path dir) throws Exception {
    Path a = dir.resolve("a.jsonl");
    Path b = dir.resolve("b.jsonl");
    String[] common = {"--count", "600", "--authors", "20", "--seed", "42", "--base-time", "1700000000",
        "--verify-sample", "0"};
    GenerateEvents.main(concat(common, "--out", a.toString(), "--threads", "2"));
    GenerateEvents.main(concat(common, "--out", b.toString(), "--threads", "1"));
    assertArrayEquals(Files.readAllBytes(a), Files.readAllBytes(b), "same seed must give byte-identical output");

    List<String> lines = Files.readAllLines(a);
    assertEquals(600, lines.size());
    int notes = 0;
    for (String line : lines) {
      assertTrue(GenerateEvents.verifyLine(line), line);
      JsonObject e = new JsonObject(line);
      int kind = e.getInteger("kind");
      assertTrue(List.of(0, 1, 3, 7, 30023).contains(kind));
      if (kind == 1) {
        notes++;
        int bytes = e.getString("content").getBytes(StandardCharsets.UTF_8).length;
        assertTrue(bytes >= 100 && bytes <= 2100, "kind 1 content of " + bytes + " bytes");
      }
      long t = e.getLong("created_at");
      assertTrue(t >= 1700000000L && t < 1700000000L + 24 * 3600);
    }
    assertTrue(notes > 200);

    // a tampered event must not verify (the check is real)
    String tampered = lines.get(0).replaceFirst("\"content\":\"", "\"content\":\"X");
    assertFalse(GenerateEvents.verifyLine(tampered));
  }

  @Test
  void idsAreUniqueEvenWhenIdenticalEventsWouldBeDrawn(@TempDir Path dir) throws Exception {
    // 3 authors, everything within 10 seconds: identical "+" reactions are certain to be drawn
    Path f = dir.resolve("dense.jsonl");
    GenerateEvents.main(new String[] {"--count", "3000", "--authors", "3", "--seed", "1", "--spread", "10",
        "--mix", "1:10,7:90", "--out", f.toString(), "--verify-sample", "50"});
    List<String> lines = Files.readAllLines(f);
    java.util.Set<String> ids = new java.util.HashSet<>();
    for (String line : lines) ids.add(new JsonObject(line).getString("id"));
    assertEquals(lines.size(), ids.size(), "every event of a file has its own id");
    for (int i = 0; i < lines.size(); i += 97) assertTrue(GenerateEvents.verifyLine(lines.get(i)));
  }

  @Test
  void keysComeFromTheSeed() {
    assertArrayEquals(BenchSigner.secretKey(5, 3), BenchSigner.secretKey(5, 3));
    assertFalse(Canon.hex(BenchSigner.secretKey(5, 3)).equals(Canon.hex(BenchSigner.secretKey(6, 3))));
    assertEquals(32, BenchSigner.xOnlyPubkey(BenchSigner.secretKey(5, 3)).length);
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = new String[a.length + b.length];
    System.arraycopy(a, 0, out, 0, a.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
