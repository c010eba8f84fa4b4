package dev.cairn.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** NIP-98 header checks without a server: URL forms, window, tags, payload hash, signature. */
class Nip98AuthTest {
  private static final EventSigner SIGNER = EventSigner.random();
  private static final byte[] BODY = "{\"method\":\"supportedmethods\",\"params\":[]}".getBytes(StandardCharsets.UTF_8);
  private static final long NOW = 1_800_000_000L;

  private static String header(String u, long createdAt) {
    String json = SIGNER.sign(createdAt, Nip98Auth.KIND, List.of(List.of("u", u), List.of("method", "post"),
        List.of("payload", Nip98Auth.sha256Hex(BODY))), "").jsonText();
    return "Nostr " + Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theUrlIsComparedInRelayUrlForm() {
    assertEquals("wss://relay.example.com", Nip98Auth.asRelayUrl("HTTPS://Relay.Example.com:443/"));
    assertEquals("ws://127.0.0.1:7777/t/club", Nip98Auth.asRelayUrl("http://127.0.0.1:7777/t/club/"));
    assertNull(Nip98Auth.asRelayUrl("wss://relay.example.com"), "the u tag of an HTTP request is an http(s) URL");
    assertEquals("https://relay.example.com/t/x", Nip98Auth.httpForm("wss://relay.example.com/t/x"));

    var ok = Nip98Auth.check(header("https://relay.example.com/", NOW), "wss://relay.example.com", "POST", BODY, NOW);
    assertInstanceOf(Nip98Auth.Checked.Passed.class, ok);
    assertNull(Nip98Auth.signatureProblem(((Nip98Auth.Checked.Passed) ok).event()));
    var plainHttp = Nip98Auth.check(header("http://relay.example.com/", NOW), "wss://relay.example.com", "POST", BODY, NOW);
    assertTrue(((Nip98Auth.Checked.Refused) plainHttp).reason().contains("is not this relay's URL"), plainHttp.toString());
  }

  @Test
  void theWindowIsSixtySecondsEitherWay() {
    String url = "http://h:1/";
    assertInstanceOf(Nip98Auth.Checked.Passed.class, Nip98Auth.check(header(url, NOW - 60), "ws://h:1", "POST", BODY, NOW));
    assertInstanceOf(Nip98Auth.Checked.Passed.class, Nip98Auth.check(header(url, NOW + 60), "ws://h:1", "POST", BODY, NOW));
    assertInstanceOf(Nip98Auth.Checked.Refused.class, Nip98Auth.check(header(url, NOW - 61), "ws://h:1", "POST", BODY, NOW));
    assertInstanceOf(Nip98Auth.Checked.Refused.class, Nip98Auth.check(header(url, NOW + 61), "ws://h:1", "POST", BODY, NOW));
  }

  @Test
  void theBodyMustHashToThePayloadTag() {
    var r = Nip98Auth.check(header("http://h:1/", NOW), "ws://h:1", "POST", "{}".getBytes(StandardCharsets.UTF_8), NOW);
    assertTrue(((Nip98Auth.Checked.Refused) r).reason().contains("payload"), r.toString());
  }

  @Test
  void aTamperedEventFailsItsSignatureCheck() {
    String json = SIGNER.sign(NOW, Nip98Auth.KIND, List.of(List.of("u", "http://h:1/"), List.of("method", "POST"),
        List.of("payload", Nip98Auth.sha256Hex(BODY))), "").jsonText().replace("\"content\":\"\"", "\"content\":\"x\"");
    String h = "Nostr " + Base64.getEncoder().encodeToString(json.getBytes(StandardCharsets.UTF_8));
    var r = Nip98Auth.check(h, "ws://h:1", "POST", BODY, NOW);
    assertNotNull(Nip98Auth.signatureProblem(((Nip98Auth.Checked.Passed) r).event()));
  }
}
