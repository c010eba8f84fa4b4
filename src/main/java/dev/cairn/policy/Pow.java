package dev.cairn.policy;

/** NIP-13: the difficulty of an event is the number of leading zero bits of its id. */
final class Pow {
  private Pow() {}

  static int leadingZeroBits(String hexId) {
    int bits = 0;
    for (int i = 0; i < hexId.length(); i++) {
      int nibble = Character.digit(hexId.charAt(i), 16);
      if (nibble == 0) {
        bits += 4;
      } else {
        return bits + Integer.numberOfLeadingZeros(nibble) - 28;
      }
    }
    return bits;
  }
}
