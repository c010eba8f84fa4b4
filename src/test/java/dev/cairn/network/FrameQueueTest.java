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
  void messagesLeaveInOrderAcrossWrapAroundGrowthAndReserve() {
    FrameQueue q = new FrameQueue();
    int next = 0;
    int taken = 0;
    long bytes = 0;
    for (int round = 0; round < 50; round++) {
      if (round % 3 == 0) {
        q.reserve(round * 7); // a history batch: room made at once, whatever the ring's state
      }
      for (int i = 0; i < round * 7; i++, next++) {
        byte[] head = b("h" + next);
        byte[] event = next % 2 == 0 ? b("{\"n\":" + next + "}") : null;
        q.add(head, event);
        bytes += FrameQueue.payloadLength(head, event);
      }
      assertEquals(bytes, q.bytes());
      for (int i = 0; i < round * 5 && !q.isEmpty(); i++, taken++) {
        assertArrayEquals(b("h" + taken), q.headAt0());
        assertArrayEquals(taken % 2 == 0 ? b("{\"n\":" + taken + "}") : null, q.eventAt0());
        bytes -= FrameQueue.payloadLength(q.headAt0(), q.eventAt0());
        q.removeFirst();
      }
      assertEquals(next - taken, q.size());
      assertEquals(bytes, q.bytes());
    }
    while (!q.isEmpty()) {
      assertArrayEquals(b("h" + taken++), q.headAt0());
      q.removeFirst();
    }
    assertEquals(next, taken);
    assertEquals(0, q.bytes());
    assertTrue(q.isEmpty());
  }
}
