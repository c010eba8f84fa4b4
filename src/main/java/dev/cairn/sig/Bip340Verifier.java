package dev.cairn.sig;

import dev.cairn.nostr.EventId;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.NostrEvent;
import fr.acinq.secp256k1.Secp256k1;

/**
 * The work of a sig-worker: the event id must be the hash of its content, and the BIP-340 Schnorr
 * signature over that id must verify against the pubkey, with libsecp256k1. Pure compute, no state.
 */
public final class Bip340Verifier {
  private final Secp256k1 secp = Secp256k1.get();

  /** Null when the event is authentic, else the {@code invalid:} reason. */
  public String check(NostrEvent event) {
    if (!EventId.verify(event)) {
      return "invalid: event id does not match the event's content";
    }
    boolean ok;
    try {
      ok = secp.verifySchnorr(Hex.decode(event.sig()), Hex.decode(event.id()), Hex.decode(event.pubkey()));
    } catch (RuntimeException e) {
      // libsecp256k1 refuses keys that are not on the curve by throwing.
      ok = false;
    }
    return ok ? null : "invalid: signature does not verify";
  }

  /**
   * Signs a note and checks it, so that a libsecp256k1 that cannot load (its copy could not be written,
   * a platform without it) stops the start with the reason, instead of a relay that is ready and then
   * refuses every EVENT as its sig-workers die one after the other. Blocking: crypto, and the library's
   * first load.
   */
  public static void selfTest() {
    try {
      NostrEvent e = dev.cairn.nostr.EventSigner.random().sign(0, 1, java.util.List.of(), "self-test");
      String fault = new Bip340Verifier().check(e);
      if (fault != null) {
        throw new IllegalStateException("libsecp256k1 self-test: a note it signed did not verify: " + fault);
      }
    } catch (LinkageError e) { // UnsatisfiedLinkError, or NoClassDefFoundError after a failed first load
      // the message says it all: the start's log line names the innermost cause, here a JNI signature
      throw new IllegalStateException("libsecp256k1 could not be loaded (" + e + "); see the lines above");
    }
  }
}
