package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * Fuzzing findings (docs/fuzzing.md): given bytes, Jackson sniffed a byte order mark or NULs and read
 * UTF-16/32, so a frame of UTF-16LE JSON (valid UTF-8 to the transport: ASCII and NULs) was accepted
 * as the message its UTF-16 reading spells. The inputs are in the seed corpora too.
 */
class EncodingFindingsTest {
  private static final String REFUSAL =
      "invalid: message must be UTF-8 JSON without a byte order mark (UTF-16 and UTF-32 are refused)";
  private static final String CLOSE = "[\"CLOSE\",\"s\"]";

  @Test
  void closeFrameInUtf16leIsRefused() {
    assertRefused(CLOSE.getBytes(StandardCharsets.UTF_16LE));
  }

  @Test
  void closeFrameInUtf16beWithBomIsRefused() {
    assertRefused(("\uFEFF" + CLOSE).getBytes(StandardCharsets.UTF_16BE));
  }

  @Test
  void closeFrameInUtf32leIsRefused() {
    assertRefused(CLOSE.getBytes(Charset.forName("UTF-32LE")));
  }

  @Test
  void closeFrameWithUtf8BomIsRefused() {
    assertRefused(("\uFEFF" + CLOSE).getBytes(StandardCharsets.UTF_8));
    InvalidMessageException e = assertThrows(InvalidMessageException.class,
        () -> ClientMessageParser.parse("\uFEFF" + CLOSE, 64, 10));
    assertEquals(REFUSAL, e.getMessage(), "the text entry point says the same");
  }

  @Test
  void eventInUtf16leIsRefused() {
    String event = TestEvents.json();
    InvalidMessageException e = assertThrows(InvalidMessageException.class,
        () -> EventParser.parse(event.getBytes(StandardCharsets.UTF_16LE)));
    assertEquals(REFUSAL.replace("message", "event"), e.getMessage());
  }

  @Test
  void plainUtf8StillParses() throws InvalidMessageException {
    assertEquals(new ClientMessage.CloseMessage("s"),
        ClientMessageParser.parse(CLOSE.getBytes(StandardCharsets.UTF_8), 64, 10));
    assertEquals(new ClientMessage.CloseMessage("é"),
        ClientMessageParser.parse("[\"CLOSE\",\"é\"]".getBytes(StandardCharsets.UTF_8), 64, 10));
  }

  private static void assertRefused(byte[] frame) {
    InvalidMessageException e = assertThrows(InvalidMessageException.class,
        () -> ClientMessageParser.parse(frame, 64, 10));
    assertEquals(REFUSAL, e.getMessage());
  }
}
