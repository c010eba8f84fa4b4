package dev.cairn.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The code shown in docs/*.md is the code that runs: a fenced block right after a line
 * {@code <!-- include: docs/examples/FILE -->} must hold exactly that file, which the example tests
 * run. To refresh every such block after changing an example:
 * {@code mvn -q test -Dtest=DocsIncludesTest -Dcairn.docs.write=true}.
 */
class DocsIncludesTest {
  static final Path ROOT = Path.of(System.getProperty("user.dir"));
  private static final Pattern INCLUDE = Pattern.compile(
      "<!-- include: (\\S+) -->\\n(```+)([a-z]*)\\n(.*?)\\2\\n", Pattern.DOTALL);

  /** {@code doc} with every include block holding its file. */
  static String refreshed(String doc) throws IOException {
    Matcher m = INCLUDE.matcher(doc);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String file = Files.readString(ROOT.resolve(m.group(1)));
      if (!file.endsWith("\n")) {
        file += "\n";
      }
      m.appendReplacement(out, Matcher.quoteReplacement(
          "<!-- include: " + m.group(1) + " -->\n" + m.group(2) + m.group(3) + "\n" + file + m.group(2) + "\n"));
    }
    m.appendTail(out);
    return out.toString();
  }

  @Test
  void everyIncludedExampleIsTheFileItself() throws Exception {
    List<String> stale = new ArrayList<>();
    int blocks = 0;
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      for (Path doc : docs.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
        String text = Files.readString(doc);
        Matcher m = INCLUDE.matcher(text);
        int found = 0;
        while (m.find()) {
          found++;
          assertTrue(Files.exists(ROOT.resolve(m.group(1))), doc + " includes a missing file " + m.group(1));
        }
        blocks += found;
        long markers = text.lines().filter(l -> l.startsWith("<!-- include: ")).count();
        assertEquals(markers, found, doc + ": an include marker without a fenced block right after it");
        String fresh = refreshed(text);
        if (!fresh.equals(text)) {
          if (Boolean.getBoolean("cairn.docs.write")) {
            Files.writeString(doc, fresh);
          } else {
            stale.add(ROOT.relativize(doc).toString());
          }
        }
      }
    }
    assertTrue(blocks > 0, "no include blocks found under docs/");
    assertEquals(List.of(), stale, "these docs show an older version of an example; refresh them: "
        + "mvn -q test -Dtest=DocsIncludesTest -Dcairn.docs.write=true");
  }
}
