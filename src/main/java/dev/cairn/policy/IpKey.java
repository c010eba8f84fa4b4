package dev.cairn.policy;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The key a per-IP limit counts under: an IPv4 address as is, an IPv6 address by its /64 prefix
 * (one subscriber usually holds a whole /64, so counting single IPv6 addresses would be no limit).
 */
final class IpKey {
  private IpKey() {}

  /** Null for an unknown address (the per-IP rules then do not apply). */
  static String of(String ip) {
    if (ip == null || ip.isEmpty()) {
      return null;
    }
    if (ip.indexOf(':') < 0) {
      return ip;
    }
    String literal = ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
    int zone = literal.indexOf('%');
    if (zone >= 0) {
      literal = literal.substring(0, zone);
    }
    try {
      // a literal with ':' is parsed, never looked up
      byte[] a = InetAddress.getByName(literal).getAddress();
      if (a.length != 16) {
        return InetAddress.getByAddress(a).getHostAddress();
      }
      StringBuilder sb = new StringBuilder(24);
      for (int i = 0; i < 8; i += 2) {
        sb.append(Integer.toHexString(((a[i] & 0xff) << 8) | (a[i + 1] & 0xff))).append(':');
      }
      return sb.append(":/64").toString();
    } catch (UnknownHostException | IllegalArgumentException e) {
      return ip;
    }
  }
}
