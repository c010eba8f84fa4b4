package dev.cairn.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The argument parser, the line reader and the relay's --config as Main sees it. */
class CliPartsTest {
  private static Args parse(String... argv) throws UsageException {
    return Args.parse("test", List.of(argv), Set.of("--tenant", "--since"), Set.of("--quiet"), 1);
  }

  @Test
  void argsTakeBothSpellingsAndRefuseWhatTheyDoNotKnow() throws Exception {
    Args a = parse("--tenant", "t1", "--since=5", "--quiet", "file.jsonl");
    assertEquals("t1", a.value("--tenant"));
    assertEquals(5, a.number("--since", -1, 0, 10));
    assertTrue(a.has("--quiet"));
    assertEquals(List.of("file.jsonl"), a.positional());
    assertEquals(List.of("-"), parse("-").positional());
    assertEquals(List.of("--odd"), parse("--", "--odd").positional());
    assertThrows(UsageException.class, () -> parse("--nope"));
    assertThrows(UsageException.class, () -> parse("--tenant"));
    assertThrows(UsageException.class, () -> parse("--quiet=yes"));
    assertThrows(UsageException.class, () -> parse("--quiet", "--quiet"));
    assertThrows(UsageException.class, () -> parse("a", "b"));
    assertThrows(UsageException.class, () -> parse("--since", "11").number("--since", -1, 0, 10));
  }

  @Test
  void theRelaysCommandLineIsAsBefore() throws Exception {
    assertNull(Cli.serveConfig(List.of()));
    assertEquals(Path.of("conf/cairn.json"), Cli.serveConfig(List.of("--config", "conf/cairn.json")));
    assertEquals(Path.of("c.json"), Cli.serveConfig(List.of("--config=c.json")));
    assertThrows(UsageException.class, () -> Cli.serveConfig(List.of("--port", "1")));
    // docker's entrypoint passes --config first
    assertEquals(List.of("export", "--config", "c.json", "--quiet"),
        Cli.commandFirst(List.of("--config", "c.json", "export", "--quiet")));
    assertEquals(List.of("import", "--config=c.json", "f"), Cli.commandFirst(List.of("--config=c.json", "import", "f")));
    assertEquals(List.of("--config", "c.json"), Cli.commandFirst(List.of("--config", "c.json")));
  }

  @Test
  void linesSplitOnNewlinesAcrossBuffersWithCrlfAndALastLineWithoutNewline() throws Exception {
    String big = "x".repeat(100_000);
    String text = "a\r\n\nbb\n" + big + "\n" + "y".repeat(300_000) + "\nlast";
    LineReader r = new LineReader(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), 200_000);
    assertArrayEquals("a".getBytes(), r.next());
    assertEquals(0, r.next().length);
    assertArrayEquals("bb".getBytes(), r.next());
    assertEquals(big, new String(r.next(), StandardCharsets.UTF_8));
    assertSame(LineReader.TOO_LONG, r.next());
    assertArrayEquals("last".getBytes(), r.next());
    assertNull(r.next());
    assertEquals(6, r.lineNo());
    assertEquals(text.length(), r.consumed());
    assertTrue(LineReader.blank(" \t ".getBytes()));
  }
}
