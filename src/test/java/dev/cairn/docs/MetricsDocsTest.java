package dev.cairn.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/operations.md's metrics table lists every {@code cairn_*} meter the code registers, marks the
 * contract's meters this build does not export, and the alert rules use only documented names.
 */
class MetricsDocsTest {
  private static final Path ROOT = DocsIncludesTest.ROOT;
  private static final Pattern NAME_IN_CODE = Pattern.compile("\"(cairn_[a-z0-9_]+)\"");
  private static final Pattern ROW = Pattern.compile("^\\| `(cairn_[a-z0-9_]+)` \\|(.*)$", Pattern.MULTILINE);
  private static final String NOT_EXPORTED = "*Not exported by this build*";

  @Test
  void everyMeterOfTheCodeIsDocumentedAndTheAlertsUseDocumentedNames() throws Exception {
    Set<String> code = new TreeSet<>();
    try (Stream<Path> files = Files.walk(ROOT.resolve("src/main/java"))) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        Matcher m = NAME_IN_CODE.matcher(Files.readString(f));
        while (m.find()) {
          code.add(m.group(1));
        }
      }
    }
    Map<String, String> documented = new LinkedHashMap<>();
    Matcher rows = ROW.matcher(Files.readString(ROOT.resolve("docs/operations.md")));
    while (rows.find()) {
      documented.put(rows.group(1), rows.group(2));
    }
    Set<String> missing = new TreeSet<>(code);
    missing.removeAll(documented.keySet());
    assertEquals(Set.of(), missing, "meters of the code without a row in docs/operations.md's metrics table");
    for (Map.Entry<String, String> e : documented.entrySet()) {
      boolean exported = code.contains(e.getKey());
      assertEquals(!exported, e.getValue().contains(NOT_EXPORTED),
          e.getKey() + (exported ? " is exported: drop " : " is not in the code: mark it ") + NOT_EXPORTED);
    }
    Matcher used = Pattern.compile("\\b(cairn_[a-z0-9_]+)").matcher(Files.readString(ROOT.resolve("docs/examples/cairn-alerts.yml")));
    int n = 0;
    while (used.find()) {
      n++;
      String name = used.group(1).replaceFirst("_(count|sum|max)$", "");
      assertTrue(documented.containsKey(name), "cairn-alerts.yml uses " + used.group(1) + ", which the metrics table lacks");
    }
    assertTrue(n > 10, "the alert rules use the metrics");
  }
}
