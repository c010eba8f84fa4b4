package dev.cairn.nostr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import fr.acinq.secp256k1.Secp256k1;
import java.util.List;
import org.junit.jupiter.api.Test;

class EventSignerTest {
  private static final byte[] KEY_3 = new byte[32];

  static {
    KEY_3[31] = 3;
  }

  @Test
  void derivesTheKnownPublicKeyOfSecretKeyThree() {
    assertEquals("f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9",
        new EventSigner(KEY_3).pubkey());
    assertEquals(new EventSigner(KEY_3).pubkey(), EventSigner.fromHex("0".repeat(63) + "3").pubkey());
  }

  @Test
  void signsAnEventThatVerifies() throws Exception {
    EventSigner signer = new EventSigner(KEY_3);
    List<List<String>> tags = List.of(List.of("t", "nostr"), List.of("p", signer.pubkey()));
    NostrEvent e = signer.sign(1700000000L, 1, tags, "hello \"world\"\n\u0001 😀");

    assertEquals(EventId.compute(e), e.id());
    assertTrue(EventId.verify(e));
    assertTrue(Secp256k1.get().verifySchnorr(
        Hex.decode(e.sig()), Hex.decode(e.id()), Hex.decode(e.pubkey())));
    // The serialized form parses back to the identical event.
    assertEquals(e, EventParser.parse(e.json()));
    assertEquals(EventJson.toJson(e), e.jsonText());

    // A signature does not carry over to other content.
    NostrEvent other = signer.sign(1700000000L, 1, tags, "hello");
    assertFalse(Secp256k1.get().verifySchnorr(
        Hex.decode(e.sig()), Hex.decode(other.id()), Hex.decode(e.pubkey())));
  }

  @Test
  void randomSignersDiffer() {
    EventSigner a = EventSigner.random();
    EventSigner b = EventSigner.random();
    assertFalse(a.pubkey().equals(b.pubkey()));
    assertTrue(Hex.isLowerHex(a.pubkey(), 64));
    NostrEvent e = a.sign(1, 7, List.of(), "+");
    assertTrue(Secp256k1.get().verifySchnorr(
        Hex.decode(e.sig()), Hex.decode(e.id()), Hex.decode(a.pubkey())));
  }

  @Test
  void refusesInvalidSecretKeys() {
    assertThrows(IllegalArgumentException.class, () -> new EventSigner(new byte[32]));
    assertThrows(IllegalArgumentException.class, () -> new EventSigner(new byte[31]));
  }

  @Test
  void hexRoundTripsAndChecksExactLength() {
    byte[] bytes = {0, 1, (byte) 0xab, (byte) 0xff};
    assertEquals("0001abff", Hex.encode(bytes));
    assertArrayEquals(bytes, Hex.decode("0001abff"));
    assertTrue(Hex.isLowerHex("0001abff", 8));
    assertFalse(Hex.isLowerHex("0001ABFF", 8));
    assertFalse(Hex.isLowerHex("0001abff", 6));
    assertFalse(Hex.isLowerHex(null, 0));
    assertThrows(IllegalArgumentException.class, () -> Hex.decode("abc"));
    assertThrows(IllegalArgumentException.class, () -> Hex.decode("AB"));
    assertTrue(Hex.equalsBytes("0001abff", bytes));
    assertFalse(Hex.equalsBytes("0001abfe", bytes));
  }
}
