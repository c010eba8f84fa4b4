package dev.cairn.network;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class FrameQueueTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void messagesLeaveInOrderAcrossSegments() {
    FrameQueue q = new FrameQueue();
    int next = 0;
    int taken = 0;
    long bytes = 0;
    long own = 0; // every third message is the connection's own
    for (int round = 0; round < 50; round++) {
      for (int i = 0; i < round * 7; i++, next++) {
        byte[] head = b("h" + next);
        byte[] event = next % 2 == 0 ? b("{\"n\":" + next + "}") : null;
        q.add(head, event, next % 3 == 0);
        bytes += FrameQueue.payloadLength(head, event);
        own += next % 3 == 0 ? FrameQueue.payloadLength(head, event) : 0;
      }
      assertEquals(bytes, q.bytes());
      assertEquals(own, q.ownBytes());
      for (int i = 0; i < round * 5 && !q.isEmpty(); i++, taken++) {
        assertArrayEquals(b("h" + taken), q.headAt0());
        assertArrayEquals(taken % 2 == 0 ? b("{\"n\":" + taken + "}") : null, q.eventAt0());
        bytes -= FrameQueue.payloadLength(q.headAt0(), q.eventAt0());
        own -= taken % 3 == 0 ? FrameQueue.payloadLength(q.headAt0(), q.eventAt0()) : 0;
        q.removeFirst();
      }
      assertEquals(next - taken, q.size());
      assertEquals(bytes, q.bytes());
      assertEquals(own, q.ownBytes());
    }
    while (!q.isEmpty()) {
      assertArrayEquals(b("h" + taken++), q.headAt0());
      q.removeFirst();
    }
    assertEquals(next, taken);
    assertEquals(0, q.bytes());
    assertEquals(0, q.ownBytes());
    assertTrue(q.isEmpty());
    assertEquals(0, q.segments());
  }

  @Test
  void whatHasBeenSentIsLetGoAtOnce() {
    FrameQueue q = new FrameQueue();
    byte[] event = b("{}");
    for (int i = 0; i < 10_000; i++) {
      q.add(b("h"), event, false);
    }
    int held = q.segments(); // 16, 32, ..., 1024, then 1024 each
    assertEquals(15, held);
    for (int i = 0; i < 9_000; i++) {
      q.removeFirst();
    }
    assertEquals(1_000, q.size());
    assertTrue(q.segments() <= 2, "segments held for 1,000 queued: " + q.segments());
    q.add(b("h"), event, false);
    assertEquals(1_001, q.size());
    while (!q.isEmpty()) {
      q.removeFirst();
    }
    assertEquals(0, q.segments());
    assertEquals(0, q.bytes());
  }
}
