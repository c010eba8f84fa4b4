package dev.cairn.nostr.negentropy;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;

/**
 * Running sum of ids, the incremental half of the fingerprint: each id is read as a 256-bit
 * little-endian unsigned integer and added modulo 2^256. Addition commutes, so the sum of a range
 * does not depend on how it was walked, and a storage could keep partial sums to answer
 * fingerprints without rereading every id.
 *
 * <p>The sum lives in four 64-bit limbs (least significant first) read straight from the id bytes,
 * with no per-id allocation. Not thread-safe; cheap to create.
 */
public final class Accumulator {
  private static final VarHandle LE_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final ThreadLocal<Hasher> HASHER = ThreadLocal.withInitial(Hasher::new);

  private long l0;
  private long l1;
  private long l2;
  private long l3;

  /** Back to the empty sum. */
  public void reset() {
    l0 = l1 = l2 = l3 = 0;
  }

  /** Adds a 32-byte id. */
  public void add(byte[] id) {
    if (id.length != Negentropy.ID_SIZE) {
      throw new IllegalArgumentException("id must be 32 bytes, got " + id.length);
    }
    add(id, 0);
  }

  /** Adds the 32 bytes of {@code buf} at {@code off} (bounds are checked by the array access). */
  public void add(byte[] buf, int off) {
    addLimbs(
        (long) LE_LONG.get(buf, off),
        (long) LE_LONG.get(buf, off + 8),
        (long) LE_LONG.get(buf, off + 16),
        (long) LE_LONG.get(buf, off + 24));
  }

  /** Adds another sum (the sum of a union of disjoint ranges). */
  public void add(Accumulator other) {
    addLimbs(other.l0, other.l1, other.l2, other.l3);
  }

  private void addLimbs(long o0, long o1, long o2, long o3) {
    long s0 = l0 + o0;
    long carry = Long.compareUnsigned(s0, o0) < 0 ? 1 : 0;
    long t1 = l1 + o1;
    long s1 = t1 + carry;
    carry = (Long.compareUnsigned(t1, o1) < 0 || Long.compareUnsigned(s1, t1) < 0) ? 1 : 0;
    long t2 = l2 + o2;
    long s2 = t2 + carry;
    carry = (Long.compareUnsigned(t2, o2) < 0 || Long.compareUnsigned(s2, t2) < 0) ? 1 : 0;
    l0 = s0;
    l1 = s1;
    l2 = s2;
    l3 = l3 + o3 + carry; // the carry out of the top limb is the mod 2^256
  }

  /** The 32-byte little-endian sum. */
  public byte[] sum() {
    byte[] out = new byte[Negentropy.ID_SIZE];
    LE_LONG.set(out, 0, l0);
    LE_LONG.set(out, 8, l1);
    LE_LONG.set(out, 16, l2);
    LE_LONG.set(out, 24, l3);
    return out;
  }

  /**
   * SHA-256 of the sum followed by {@code count} as a varint, first 16 bytes. The count guards
   * against sums that collide by construction (for example adding an id and a crafted complement).
   */
  public Fingerprint fingerprint(long count) {
    Hasher h = HASHER.get();
    byte[] in = h.input;
    LE_LONG.set(in, 0, l0);
    LE_LONG.set(in, 8, l1);
    LE_LONG.set(in, 16, l2);
    LE_LONG.set(in, 24, l3);
    int len = Negentropy.ID_SIZE + Varint.encodeInto(count, in, Negentropy.ID_SIZE);
    try {
      h.sha.update(in, 0, len);
      h.sha.digest(h.hash, 0, h.hash.length);
    } catch (DigestException e) {
      throw new IllegalStateException("SHA-256 output fits its buffer", e);
    }
    return new Fingerprint(Arrays.copyOf(h.hash, Negentropy.FINGERPRINT_SIZE));
  }

  /**
   * Per-thread digest and scratch buffers: fingerprints are computed by the ten thousand per
   * message, so they reuse these instead of allocating for each one.
   */
  private static final class Hasher {
    final MessageDigest sha = newSha256();
    final byte[] input = new byte[Negentropy.ID_SIZE + Varint.MAX_LENGTH];
    final byte[] hash = new byte[32];
  }

  private static MessageDigest newSha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JRE ships SHA-256", e);
    }
  }
}
