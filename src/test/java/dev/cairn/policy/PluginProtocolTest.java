package dev.cairn.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.config.PolicyConfig;
import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** strfry's plugin protocol: the request line, answer parsing, rejection messages, line splitting. */
class PluginProtocolTest {
  private static final EventSigner A = EventSigner.random();

  @Test
  void theRequestLineIsStrfrysWithTheEventAsReceived() {
    NostrEvent e = A.sign(1_700_000_000L, 1, List.of(List.of("e", "x".repeat(3)), List.of("t")), "line\nbreak \"q\" é");
    String line = PluginProtocol.request(e, "203.0.113.9", null, 1_700_000_005L);
    assertFalse(line.contains("\n"), "one line");
    JsonObject r = new JsonObject(line);
    assertEquals("new", r.getString("type"));
    assertEquals(new JsonObject(e.jsonText()), r.getJsonObject("event"));
    assertEquals(1_700_000_005L, r.getLong("receivedAt"));
    assertEquals("IP4", r.getString("sourceType"));
    assertEquals("203.0.113.9", r.getString("sourceInfo"));
    assertFalse(r.containsKey("authed"));
    assertEquals(A.pubkey(), new JsonObject(PluginProtocol.request(e, "::1", A.pubkey(), 0)).getString("authed"));
  }

  @Test
  void sourceTypes() {
    assertEquals(new PluginProtocol.Source("IP6", "2001:db8::1"), PluginProtocol.source("2001:db8::1"));
    assertEquals(new PluginProtocol.Source("IP6", "::1"), PluginProtocol.source("[::1]"));
    assertEquals(new PluginProtocol.Source("IP4", "192.0.2.1"), PluginProtocol.source("::ffff:192.0.2.1"));
    assertEquals(new PluginProtocol.Source("IP4", ""), PluginProtocol.source(null));
  }

  @Test
  void answers() {
    assertEquals(new PluginProtocol.Answer("ab", "reject", "blocked: no"),
        PluginProtocol.parse("{\"id\":\"ab\",\"action\":\"reject\",\"msg\":\"blocked: no\"}"));
    assertEquals(new PluginProtocol.Answer("ab", "accept", ""), PluginProtocol.parse(" {\"id\":\"ab\",\"action\":\"accept\"} "));
    assertEquals("not JSON", assertThrows(IllegalArgumentException.class, () -> PluginProtocol.parse("{")).getMessage());
    assertEquals("not a JSON object",
        assertThrows(IllegalArgumentException.class, () -> PluginProtocol.parse("[1]")).getMessage());
    assertEquals("no string \"id\"",
        assertThrows(IllegalArgumentException.class, () -> PluginProtocol.parse("{\"action\":\"accept\"}")).getMessage());
  }

  @Test
  void rejectionsGetANip01Prefix() {
    assertEquals("blocked: not on white-list", PluginProtocol.rejection("blocked: not on white-list"));
    assertEquals("rate-limited: slow down", PluginProtocol.rejection("rate-limited: slow down"));
    assertEquals("blocked: spam", PluginProtocol.rejection("spam"));
    assertEquals("blocked: Blocked: capitalised", PluginProtocol.rejection("Blocked: capitalised"));
    assertEquals("blocked: rejected by write policy", PluginProtocol.rejection(""));
    assertEquals("blocked: rejected by write policy", PluginProtocol.rejection(null));
  }

  @Test
  void linesAreSplitAndOverlongOnesReportedOnce() throws Exception {
    String text = "one\r\ntwo\n" + "x".repeat(100) + "\n\nlast";
    List<String> out = new ArrayList<>();
    PluginProcess.lines(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), 50, out::add);
    List<String> expected = new ArrayList<>(List.of("one", "two"));
    expected.add(null);
    expected.add("");
    expected.add("last");
    assertEquals(expected, out);
  }

  @Test
  void displayNames() {
    assertEquals("whitelist.js", Plugin.displayName(plugin(List.of("./plugins/whitelist.js"), true)));
    assertEquals("filter.pl", Plugin.displayName(plugin(List.of("LEVEL=3 perl /opt/filter.pl --strict"), true)));
    assertEquals("p.js", Plugin.displayName(plugin(List.of("node", "lib/p.js", "--x"), false)));
    assertEquals("exit", Plugin.displayName(plugin(List.of("exit 3"), true)));
  }

  private static PolicyConfig.Plugin plugin(List<String> command, boolean shell) {
    return new PolicyConfig.Plugin(command, shell, Duration.ofSeconds(2), false, 10);
  }
}
