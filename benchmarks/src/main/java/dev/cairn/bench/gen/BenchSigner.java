package dev.cairn.bench.gen;

import fr.acinq.secp256k1.Secp256k1;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Deterministic keys and BIP-340 signatures through libsecp256k1 (secp256k1-kmp JNI).
 *
 * <p>Secret key of author {@code i}: sha256("cairn-bench/sk" || seed || i || counter), the first
 * counter giving a valid key. Aux randomness of event {@code n}: sha256("cairn-bench/aux" || seed || n),
 * so a given seed always yields byte-identical signatures.
 */
public final class BenchSigner {
  private static final Secp256k1 SECP = Secp256k1.get();
  private static final byte[] SK_TAG = "cairn-bench/sk".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] AUX_TAG = "cairn-bench/aux".getBytes(StandardCharsets.US_ASCII);

  private BenchSigner() {}

  public static byte[] secretKey(long seed, int author) {
    for (long counter = 0; ; counter++) {
      byte[] sk = Canon.sha256(SK_TAG, Canon.longBytes(seed), Canon.longBytes(author), Canon.longBytes(counter));
      if (SECP.secKeyVerify(sk)) {
        return sk;
      }
    }
  }

  /** x-only public key: bytes 1..33 of the compressed point. */
  public static byte[] xOnlyPubkey(byte[] secretKey) {
    byte[] compressed = SECP.pubKeyCompress(SECP.pubkeyCreate(secretKey));
    return Arrays.copyOfRange(compressed, 1, 33);
  }

  public static byte[] aux(long seed, long eventIndex) {
    return Canon.sha256(AUX_TAG, Canon.longBytes(seed), Canon.longBytes(eventIndex));
  }

  public static byte[] sign(byte[] id32, byte[] secretKey, byte[] aux32) {
    return SECP.signSchnorr(id32, secretKey, aux32);
  }

  public static boolean verify(byte[] sig64, byte[] id32, byte[] xOnlyPubkey) {
    return SECP.verifySchnorr(sig64, id32, xOnlyPubkey);
  }

  /** Recomputes the id of a parsed event and checks id and signature. */
  public static boolean verifyEvent(String id, String pubkey, long createdAt, int kind, List<List<String>> tags,
      String content, String sig) {
    byte[] computed = Canon.sha256(Canon.serialize(pubkey, createdAt, kind, tags, content));
    if (!Canon.hex(computed).equals(id)) {
      return false;
    }
    return verify(Canon.unhex(sig), computed, Canon.unhex(pubkey));
  }
}
