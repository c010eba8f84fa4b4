package dev.cairn.network;

/**
 * One connection's outgoing WebSocket messages, in order, as a ring of (head, event) pairs: a message
 * is {@code head} alone, or for an EVENT {@code head} (the subscription's {@code ["EVENT","<sub>",}) +
 * the event's JSON + {@code ]}. The event bytes are shared with every other subscriber that gets the
 * event, so a queued EVENT costs two references here, not a copy. {@link #bytes} counts the message
 * sizes as they will be sent. The arrays are dropped once empty, so an idle connection holds none.
 */
final class FrameQueue {
  private static final int INITIAL = 16;

  private byte[][] heads;
  private byte[][] events;
  private int first;
  private int size;
  private long bytes;

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

  /**
   * Room for {@code more} messages on top of those queued, made at once: a REQ's history (hundreds of
   * events in one Write) would otherwise double the arrays several times, copying them each time.
   */
  void reserve(int more) {
    int need = size + more;
    if (heads == null || need > heads.length) {
      resize(Math.max(INITIAL, Integer.highestOneBit(need - 1) << 1));
    }
  }

  void add(byte[] head, byte[] event) {
    if (heads == null) {
      heads = new byte[INITIAL][];
      events = new byte[INITIAL][];
    } else if (size == heads.length) {
      resize(heads.length * 2);
    }
    int i = (first + size) & (heads.length - 1);
    heads[i] = head;
    events[i] = event;
    size++;
    bytes += payloadLength(head, event);
  }

  byte[] headAt0() {
    return heads[first];
  }

  byte[] eventAt0() {
    return events[first];
  }

  void removeFirst() {
    bytes -= payloadLength(heads[first], events[first]);
    heads[first] = null;
    events[first] = null;
    first = (first + 1) & (heads.length - 1);
    if (--size == 0) {
      clear();
    }
  }

  void clear() {
    heads = null;
    events = null;
    first = 0;
    size = 0;
    bytes = 0;
  }

  static int payloadLength(byte[] head, byte[] event) {
    return event == null ? head.length : head.length + event.length + 1;
  }

  /** New arrays of {@code capacity} (a power of two, at least {@code size}) holding the queue from index 0. */
  private void resize(int capacity) {
    byte[][] h = new byte[capacity][];
    byte[][] e = new byte[capacity][];
    for (int k = 0; k < size; k++) {
      h[k] = heads[(first + k) & (heads.length - 1)];
      e[k] = events[(first + k) & (heads.length - 1)];
    }
    heads = h;
    events = e;
    first = 0;
  }
}
