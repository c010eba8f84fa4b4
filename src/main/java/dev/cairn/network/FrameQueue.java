package dev.cairn.network;

/**
 * One connection's outgoing WebSocket messages, in order, as (head, event) pairs: a message is
 * {@code head} alone, or for an EVENT {@code head} (the subscription's {@code ["EVENT","<sub>",}) + the
 * event's JSON + {@code ]}. The event bytes are shared with every other subscriber that gets the event,
 * so a queued EVENT costs two references here, not a copy. {@link #bytes} counts the message sizes as
 * they will be sent.
 *
 * <p>The pairs sit in a chain of segments, not in one ring that doubles: a subscriber behind under a
 * fan-out overload queues 10^4 to 10^5 messages, and a ring held up to twice that in references, was
 * copied at every doubling, and kept its largest size for as long as anything waited, which under an
 * overload is the whole overload. Segments start small (an OK or two is the common case), grow to
 * {@link #MAX_SEGMENT} entries (4 KB of references per array), and each is dropped as soon as it has been
 * sent: what a queue holds follows what waits, and an idle connection holds none.
 *
 * <p>A message is this connection's own (an answer to it: history events, OK, EOSE, ...) or shared (a
 * fan-out delivery); {@link #ownBytes} counts the own ones, which only this queue keeps alive.
 */
final class FrameQueue {
  private static final int FIRST_SEGMENT = 16;
  private static final int MAX_SEGMENT = 1024;

  /** A run of messages: {@code [start, end)} still queued; only the first segment of a chain has {@code start > 0}. */
  private static final class Segment {
    final byte[][] heads;
    final byte[][] events;
    final boolean[] own;
    int start;
    int end;
    Segment next;

    Segment(int capacity) {
      heads = new byte[capacity][];
      events = new byte[capacity][];
      own = new boolean[capacity];
    }
  }

  private Segment first;
  private Segment last;
  private int size;
  private long bytes;
  private long ownBytes;

  boolean isEmpty() {
    return size == 0;
  }

  int size() {
    return size;
  }

  /** The payload bytes of every queued message. */
  long bytes() {
    return bytes;
  }

  /** The payload bytes of the queued messages that are this connection's own (not shared deliveries). */
  long ownBytes() {
    return ownBytes;
  }

  /** Segments held (for tests: a sent segment is dropped at once). */
  int segments() {
    int n = 0;
    for (Segment s = first; s != null; s = s.next) {
      n++;
    }
    return n;
  }

  /** Queues a message; {@code own}: this connection's alone, not an event shared with other subscribers. */
  void add(byte[] head, byte[] event, boolean own) {
    Segment s = last;
    if (s == null) {
      s = first = last = new Segment(FIRST_SEGMENT);
    } else if (s.end == s.heads.length) {
      s = s.next = new Segment(Math.min(MAX_SEGMENT, s.heads.length * 2));
      last = s;
    }
    s.heads[s.end] = head;
    s.events[s.end] = event;
    s.own[s.end] = own;
    s.end++;
    size++;
    int length = payloadLength(head, event);
    bytes += length;
    if (own) {
      ownBytes += length;
    }
  }

  byte[] headAt0() {
    return first.heads[first.start];
  }

  byte[] eventAt0() {
    return first.events[first.start];
  }

  void removeFirst() {
    Segment s = first;
    int length = payloadLength(s.heads[s.start], s.events[s.start]);
    bytes -= length;
    if (s.own[s.start]) {
      ownBytes -= length;
    }
    s.heads[s.start] = null;
    s.events[s.start] = null;
    s.start++;
    if (--size == 0) {
      clear();
    } else if (s.start == s.end) { // sent in full (a later segment exists only behind a full one)
      first = s.next;
    }
  }

  void clear() {
    first = null;
    last = null;
    size = 0;
    bytes = 0;
    ownBytes = 0;
  }

  static int payloadLength(byte[] head, byte[] event) {
    return event == null ? head.length : head.length + event.length + 1;
  }
}
