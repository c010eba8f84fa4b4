package dev.cairn.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The byte reader agrees with {@link Frames} (the String reader) on what relays send. */
class FrameBytesTest {
  private static final String ID = "a".repeat(63) + "b";

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static void same(String frame) {
    Frames.Head want = Frames.head(frame);
    Frames.Head got = FrameBytes.head(utf8(frame));
    assertEquals(want == null ? null : want.verb(), got == null ? null : got.verb(), frame);
    assertEquals(want == null ? null : want.second(), got == null ? null : got.second(), frame);
    assertEquals(Frames.eventId(frame), FrameBytes.eventId(utf8(frame)), frame);
  }

  @Test
  void readsTheHeadAndIdOfEveryFrameKindLikeTheStringReader() {
    same("[\"EVENT\",\"sub-1\",{\"id\":\"" + ID + "\",\"content\":\"caf\u00e9 \ud83c\udf89\",\"kind\":1}]");
    same("[ \"EVENT\" , \"sub-1\" , {\"content\":\"\\\"id\\\": no\",\"id\" : \"" + ID + "\"}]");
    same("[\"EOSE\",\"sub-1\"]");
    same("[\"CLOSED\",\"sub-1\",\"error: query failed\"]");
    same("[\"NOTICE\",\"caf\u00e9\"]");
    same("[\"OK\",\"" + ID + "\",true,\"\"]");
    same("[\"EVENT\",\"s\\u0075b\",{\"id\":\"" + ID + "\"}]"); // an escaped sub id: read like Frames does
    same("[\"EVENT\",\"s\u00fcb\",{}]"); // a non-ASCII sub id
    same("[\"EOSE\"]");
    same("{\"not\":\"a frame\"}");
    same("");
  }

  @Test
  void anEventWithoutAnIdHasNone() {
    assertNull(FrameBytes.eventId(utf8("[\"EVENT\",\"s\",{\"kind\":1,\"idx\":\"" + ID + "\"}]")));
    assertNull(FrameBytes.eventId(utf8("[\"EVENT\",\"s\",{\"id\":\"short\"}]")));
  }
}
