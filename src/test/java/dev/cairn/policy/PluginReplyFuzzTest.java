package dev.cairn.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A write-policy plugin's stdout (strfry's protocol, docs/plugins.md) through the line splitter
 * and the answer parser (docs/fuzzing.md). The plugin is outside code: whatever it prints, the reader
 * thread must only ever see an answer or an IllegalArgumentException (anything else would kill it and
 * leave every later event waiting for its timeout). Invariants: lines hold no newline and fit the
 * limit; an answer has non-null fields and re-encoded parses to itself; its rejection message
 * carries a NIP-01 prefix.
 */
class PluginReplyFuzzTest {
  private static final int MAX = 512; // small, so the fuzzer reaches the overlong-line path

  @FuzzTest(maxDuration = "10s")
  void stdout(byte[] out) throws IOException {
    List<String> lines = new ArrayList<>();
    PluginProcess.lines(new ByteArrayInputStream(out), MAX, lines::add);
    for (String line : lines) {
      if (line == null) {
        continue; // an overlong line, reported once
      }
      assertFalse(line.contains("\n"));
      assertTrue(line.getBytes(StandardCharsets.UTF_8).length <= MAX * 3, "at most MAX bytes, each decoded to at most 3");
      PluginProtocol.Answer a;
      try {
        a = PluginProtocol.parse(line);
      } catch (IllegalArgumentException e) {
        assertNotNull(e.getMessage());
        continue;
      }
      assertNotNull(a.id());
      assertNotNull(a.action());
      assertNotNull(a.msg());
      String again = new JsonObject().put("id", a.id()).put("action", a.action()).put("msg", a.msg()).encode();
      assertEquals(a, PluginProtocol.parse(again));
      String rejection = PluginProtocol.rejection(a.msg());
      assertTrue(rejection.matches("(?s)(duplicate|pow|blocked|rate-limited|invalid|restricted|auth-required|error):.*"),
          rejection);
    }
  }
}
