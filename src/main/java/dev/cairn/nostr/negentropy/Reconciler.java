package dev.cairn.nostr.negentropy;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The protocol state machine shared by both roles, a line-by-line port of the reference C++ {@code
 * Negentropy::reconcileAux} and {@code splitRange} so that replies match it byte for byte (same
 * bucket split, same minimal bounds, same frame-size cut-off).
 *
 * <p>For each range of the incoming message: a Skip is answered with Skip (adjacent skips merged, a
 * trailing one left implicit); a Fingerprint that matches ours is skipped, one that does not is
 * split into 16 fingerprinted buckets, or an id list under 32 items; an IdList is, on the server,
 * answered with our own ids for the range and, on the client, diffed to fill have/need and then
 * skipped. With a frame size limit, once the output passes {@code limit - 200} bytes the rest of
 * the universe is answered with one fingerprint so the peer asks again next round.
 */
final class Reconciler {
  private static final int BUCKETS = 16;
  private static final int ID = Negentropy.ID_SIZE;

  private final NegentropyStorage storage;
  private final long frameSizeLimit;
  private final boolean initiator;
  private final byte[] prevId = new byte[ID];
  private final byte[] currId = new byte[ID];

  Reconciler(NegentropyStorage storage, long frameSizeLimit, boolean initiator) {
    if (frameSizeLimit != 0 && frameSizeLimit < Negentropy.MIN_FRAME_SIZE_LIMIT) {
      throw new IllegalArgumentException(
          "frameSizeLimit must be 0 (none) or at least 4096, got " + frameSizeLimit);
    }
    this.storage = storage;
    this.frameSizeLimit = frameSizeLimit;
    this.initiator = initiator;
  }

  /** The client's first message: our whole set, split as any mismatching range would be. */
  byte[] initiate() {
    MessageWriter out = new MessageWriter();
    out.writeByte(Negentropy.PROTOCOL_VERSION);
    splitRange(out, 0, storage.size(), Bound.INFINITY);
    return out.toByteArray();
  }

  /**
   * Processes {@code query} and returns the reply (at least the version byte). On the client,
   * {@code have}/{@code need} receive the ids found only on our side / only on theirs.
   */
  byte[] reconcile(byte[] query, List<byte[]> have, List<byte[]> need) throws NegentropyException {
    MessageReader in = new MessageReader(query);
    MessageWriter out = new MessageWriter();
    out.writeByte(Negentropy.PROTOCOL_VERSION);

    int version = in.readVersionByte();
    if (version < 0x60 || version > 0x6f) {
      throw new NegentropyException(
          "invalid negentropy protocol version byte 0x" + Integer.toHexString(version));
    }
    if (version != Negentropy.PROTOCOL_VERSION) {
      if (initiator) {
        throw new NegentropyException(
            "unsupported negentropy protocol version requested: " + (version - 0x60));
      }
      return out.toByteArray(); // our version alone: the client may downgrade and retry
    }

    int storageSize = storage.size();
    Bound prevBound = Bound.ZERO;
    int prevIndex = 0;
    boolean skip = false;

    while (in.hasRemaining()) {
      int mark = out.size(); // everything after mark is this range's pending output
      Bound currBound = in.readBound();
      Mode mode = in.readMode();

      int lower = prevIndex;
      int upper = storage.findLowerBound(prevIndex, storageSize, currBound);

      switch (mode) {
        case SKIP -> skip = true;
        case FINGERPRINT -> {
          int theirs = in.skip(Negentropy.FINGERPRINT_SIZE, "fingerprint");
          if (storage.fingerprint(lower, upper).matches(query, theirs)) {
            skip = true;
          } else {
            skip = flushSkip(out, skip, prevBound);
            splitRange(out, lower, upper, currBound);
          }
        }
        case ID_LIST -> {
          long count = in.readVarint();
          int theirIds = in.skipIds(count);
          if (initiator) {
            skip = true;
            diff(query, theirIds, (int) count, lower, upper, have, need);
          } else {
            skip = flushSkip(out, skip, prevBound);
            Bound endBound = currBound;
            int sent = 0;
            for (int i = lower; i < upper; i++) {
              // the reference measures the output before this range's pending skip: same here
              if (exceededFrameSizeLimit((long) mark + (long) sent * ID)) {
                endBound = boundAt(i);
                upper = i; // the rest of the range goes into the closing fingerprint
                break;
              }
              sent++;
            }
            out.writeBound(endBound);
            out.writeMode(Mode.ID_LIST);
            out.writeVarint(sent);
            out.writeIds(storage, lower, lower + sent);
            mark = out.size(); // committed: never dropped by the cut-off below
          }
        }
        default -> throw new AssertionError(mode);
      }

      if (exceededFrameSizeLimit(out.size())) {
        out.truncate(mark);
        out.writeBound(Bound.INFINITY);
        out.writeMode(Mode.FINGERPRINT);
        storage.fingerprint(upper, storageSize).writeTo(out);
        break;
      }

      prevIndex = upper;
      prevBound = currBound;
    }
    return out.toByteArray();
  }

  /** Writes the pending merged Skip range, if any; returns the new pending state (none). */
  private static boolean flushSkip(MessageWriter out, boolean skip, Bound prevBound) {
    if (skip) {
      out.writeBound(prevBound);
      out.writeMode(Mode.SKIP);
    }
    return false;
  }

  /** Client side of an IdList range: ids only we have go to have, ids only they have to need. */
  private void diff(
      byte[] query,
      int off,
      int count,
      int lower,
      int upper,
      List<byte[]> have,
      List<byte[]> need) {
    Set<IdKey> theirs = new LinkedHashSet<>(Math.max(16, count * 2));
    for (int k = 0; k < count; k++) {
      theirs.add(new IdKey(query, off + k * ID));
    }
    for (int i = lower; i < upper; i++) {
      storage.copyId(i, currId, 0);
      if (!theirs.remove(new IdKey(currId, 0))) {
        have.add(currId.clone());
      }
    }
    for (IdKey key : theirs) {
      need.add(key.bytes());
    }
  }

  /**
   * Appends ranges covering items {@code [lower, upper)} up to {@code upperBound}: one IdList when
   * there are fewer than 32 items, else 16 fingerprinted buckets of near-equal size (the first
   * {@code n % 16} one larger), each ending at the minimal bound before the next bucket.
   */
  private void splitRange(MessageWriter out, int lower, int upper, Bound upperBound) {
    int numElems = upper - lower;
    if (numElems < BUCKETS * 2) {
      out.writeBound(upperBound);
      out.writeMode(Mode.ID_LIST);
      out.writeVarint(numElems);
      out.writeIds(storage, lower, upper);
      return;
    }
    int itemsPerBucket = numElems / BUCKETS;
    int bucketsWithExtra = numElems % BUCKETS;
    int curr = lower;
    for (int i = 0; i < BUCKETS; i++) {
      int bucketSize = itemsPerBucket + (i < bucketsWithExtra ? 1 : 0);
      Fingerprint fingerprint = storage.fingerprint(curr, curr + bucketSize);
      curr += bucketSize;
      out.writeBound(curr == upper ? upperBound : minimalBound(curr - 1, curr));
      out.writeMode(Mode.FINGERPRINT);
      fingerprint.writeTo(out);
    }
  }

  private Bound minimalBound(int prev, int curr) {
    storage.copyId(prev, prevId, 0);
    storage.copyId(curr, currId, 0);
    return Bounds.minimal(storage.timestamp(prev), prevId, storage.timestamp(curr), currId);
  }

  private Bound boundAt(int index) {
    storage.copyId(index, currId, 0);
    return new Bound(storage.timestamp(index), currId);
  }

  private boolean exceededFrameSizeLimit(long n) {
    return frameSizeLimit != 0 && n > frameSizeLimit - 200;
  }
}
