package dev.cairn.bench.load;

/**
 * One pre-signed event of a generated file: the JSON as it is sent, and the few fields the load
 * clients need. {@code address} is set for replaceable and addressable kinds ({@code kind:pubkey:d}):
 * two versions of one address are never in flight at once, so a relay never sees them out of order.
 */
public record EventLine(String json, String id, String pubkey, int kind, long createdAt, String address) {

  public String frame() {
    return "[\"EVENT\"," + json + "]";
  }

  public static boolean replaceable(int kind) {
    return kind == 0 || kind == 3 || (kind >= 10000 && kind < 20000);
  }

  public static boolean addressable(int kind) {
    return kind >= 30000 && kind < 40000;
  }
}
