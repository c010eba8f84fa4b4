package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The configuration reference in docs/operations.md cannot drift from cairn-defaults.json: every key
 * has a description, every description a key, and the generated section is what {@link ConfigDocs}
 * renders now. To regenerate after changing the defaults or config-keys.txt:
 * {@code mvn -q test -Dtest=ConfigDocsTest -Dcairn.docs.write=true}.
 */
class ConfigDocsTest {
  private static final Path DOC = Path.of(System.getProperty("user.dir"), "docs", "operations.md");
  private static final String REGENERATE = "mvn -q test -Dtest=ConfigDocsTest -Dcairn.docs.write=true";

  @Test
  void everyDefaultKeyHasADescriptionAndEveryDescriptionAKey() {
    List<String> problems = ConfigDocs.problems(ConfigLoader.defaults(), ConfigDocs.descriptions());
    assertEquals(List.of(), problems, String.join("\n", problems) + "\nthen: " + REGENERATE);
  }

  @Test
  void operationsMdHasTheGeneratedSectionOfTodaysDefaults() throws Exception {
    String doc = Files.readString(DOC);
    String expected = ConfigDocs.replaceSection(doc,
        ConfigDocs.render(ConfigLoader.defaults(), ConfigDocs.descriptions()));
    if (Boolean.getBoolean("cairn.docs.write")) {
      if (!expected.equals(doc)) {
        Files.writeString(DOC, expected);
      }
      return;
    }
    assertEquals(expected, doc, "docs/operations.md's config reference is out of date; regenerate it: " + REGENERATE);
  }

  @Test
  void theEnvColumnNamesVariablesTheLoaderAccepts() {
    JsonObject defaults = ConfigLoader.defaults();
    for (Map.Entry<String, Object> e : ConfigDocs.leaves(defaults).entrySet()) {
      Object v = e.getValue();
      String text = v instanceof JsonArray a ? a.encode() : String.valueOf(v);
      JsonObject copy = defaults.copy();
      ConfigLoader.applyEnv(copy, Map.of(ConfigLoader.envName(e.getKey()), text));
      assertEquals(defaults, copy, e.getKey() + ": overriding with its own default changes nothing");
    }
  }

  @Test
  void aKeyWithoutDescriptionAStaleDescriptionAndAMissingSectionAreReported() {
    JsonObject defaults = new JsonObject().put("a", new JsonObject().put("b", 1).put("c", "x"))
        .put("list", new JsonArray());
    Map<String, String> d = ConfigDocs.parse("# comment\na.b = the b\n  continued\nlist = items\nlist[].id = an item's id\n"
        + "gone = no longer a key\n");
    assertEquals("the b continued", d.get("a.b"));
    List<String> problems = ConfigDocs.problems(defaults, d);
    assertEquals(2, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains("a.c has no description"), problems.get(0));
    assertTrue(problems.get(1).contains("describes gone"), problems.get(1));
    assertThrows(IllegalStateException.class, () -> ConfigDocs.render(defaults, d));
    assertThrows(IllegalArgumentException.class, () -> ConfigDocs.parse("a = 1\na = 2\n"));
    assertThrows(IllegalArgumentException.class, () -> ConfigDocs.replaceSection("no markers", "x"));

    Map<String, String> ok = ConfigDocs.parse("a.b = the b | pipe\na.c = the c\nlist = items\nlist[].id = an id\n");
    String section = ConfigDocs.render(defaults, ok);
    assertTrue(section.contains("| `a.b` | `1` | `CAIRN_A_B` | the b \\| pipe |"), section);
    assertTrue(section.contains("| `list[].id` |  |  | an id |"), section);
    String doc = "before\n" + ConfigDocs.BEGIN + "\nold\n" + ConfigDocs.END + "\nafter\n";
    assertEquals("before\n" + section + "\nafter\n", ConfigDocs.replaceSection(doc, section));
  }
}
