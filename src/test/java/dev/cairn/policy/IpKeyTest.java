package dev.cairn.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

class IpKeyTest {
  @Test
  void ipv4AsIs() {
    assertEquals("203.0.113.7", IpKey.of("203.0.113.7"));
  }

  @Test
  void ipv6ByItsSlash64() {
    assertEquals(IpKey.of("2001:db8:1:2::1"), IpKey.of("2001:db8:1:2:ffff:0:0:9"));
    assertEquals(IpKey.of("2001:db8:1:2::1"), IpKey.of("[2001:0db8:0001:0002::5]"));
    assertNotEquals(IpKey.of("2001:db8:1:2::1"), IpKey.of("2001:db8:1:3::1"));
    assertEquals("0:0:0:0::/64", IpKey.of("0:0:0:0:0:0:0:1"));
  }

  @Test
  void unknown() {
    assertNull(IpKey.of(null));
    assertNull(IpKey.of(""));
  }
}
