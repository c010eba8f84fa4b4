package dev.cairn.network;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The listener's UTF-8 check of WebSocket text frames (docs/fuzzing.md): {@link Utf8#isValid}, with
 * its eight-bytes-at-a-time ASCII path, says exactly what the JDK's strict decoder says (no overlong
 * forms, no surrogates, nothing above U+10FFFF, no truncated sequence).
 */
class Utf8FuzzTest {
  @FuzzTest(maxDuration = "10s")
  void frame(byte[] frame) {
    assertEquals(jdkSaysValid(frame), Utf8.isValid(frame));
  }

  private static boolean jdkSaysValid(byte[] b) {
    try {
      StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(b));
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }
}
