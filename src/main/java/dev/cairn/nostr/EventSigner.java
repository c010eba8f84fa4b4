package dev.cairn.nostr;

import fr.acinq.secp256k1.Secp256k1;
import java.security.SecureRandom;
import java.util.List;

/**
 * Builds and signs events with one secret key (BIP-340 Schnorr over secp256k1), for tests, tools
 * and benchmarks. The relay itself never signs; it only verifies.
 */
public final class EventSigner {
  private static final SecureRandom RANDOM = new SecureRandom();

  private final byte[] secretKey;
  private final String pubkey;

  /** @param secretKey 32 bytes, a valid secp256k1 scalar */
  public EventSigner(byte[] secretKey) {
    if (secretKey.length != 32 || !Secp256k1.get().secKeyVerify(secretKey)) {
      throw new IllegalArgumentException("not a valid secp256k1 secret key");
    }
    this.secretKey = secretKey.clone();
    this.pubkey = Hex.encode(xOnlyPublicKey(this.secretKey));
  }

  /** A signer with a fresh random key. */
  public static EventSigner random() {
    byte[] key = new byte[32];
    while (true) {
      RANDOM.nextBytes(key);
      if (Secp256k1.get().secKeyVerify(key)) {
        return new EventSigner(key);
      }
    }
  }

  /** A signer for a 64-hex secret key. */
  public static EventSigner fromHex(String secretKeyHex) {
    return new EventSigner(Hex.decode(secretKeyHex));
  }

  /** The 32-byte x-only public key of {@code secretKey} (BIP-340, what Nostr calls pubkey). */
  public static byte[] xOnlyPublicKey(byte[] secretKey) {
    byte[] uncompressed = Secp256k1.get().pubkeyCreate(secretKey); // 0x04 | X(32) | Y(32)
    byte[] x = new byte[32];
    System.arraycopy(uncompressed, 1, x, 0, 32);
    return x;
  }

  /** This signer's public key, 64 lowercase hex. */
  public String pubkey() {
    return pubkey;
  }

  /** A complete signed event: id per NIP-01, Schnorr signature over it, and its JSON. */
  public NostrEvent sign(long createdAt, int kind, List<List<String>> tags, String content) {
    byte[] id = EventId.hash(pubkey, createdAt, kind, tags, content);
    byte[] aux = new byte[32];
    RANDOM.nextBytes(aux); // BIP-340 recommends fresh auxiliary randomness per signature
    String sig = Hex.encode(Secp256k1.get().signSchnorr(id, secretKey, aux));
    String idHex = Hex.encode(id);
    return NostrEvent.of(idHex, pubkey, createdAt, kind, tags, content, sig);
  }
}
