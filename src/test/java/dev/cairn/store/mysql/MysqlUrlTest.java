package dev.cairn.store.mysql;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.mysqlclient.MySQLConnectOptions;
import org.junit.jupiter.api.Test;

class MysqlUrlTest {

  @Test
  void fullUrl() {
    MysqlUrl u = MysqlUrl.parse("mysql://cairn:s3cret@db.example.org:3307/cairn_meta");
    assertEquals(new MysqlUrl("cairn", "s3cret", "db.example.org", 3307, "cairn_meta"), u);
  }

  @Test
  void passwordAndPortAreOptional() {
    MysqlUrl u = MysqlUrl.parse("mysql://root@127.0.0.1/meta");
    assertEquals("root", u.user());
    assertEquals("", u.password());
    assertEquals(3306, u.port());
    assertEquals("meta", u.database());
  }

  @Test
  void percentEncodedCredentialsAndIpv6() {
    MysqlUrl u = MysqlUrl.parse("mysql://us%40er:p%3Aa%2Fs%40s+1@[::1]:3306/m");
    assertEquals("us@er", u.user());
    assertEquals("p:a/s@s+1", u.password());
    assertEquals("::1", u.host());
  }

  @Test
  void emptyPasswordAfterColon() {
    assertEquals("", MysqlUrl.parse("mysql://root:@h:1/d").password());
  }

  @Test
  void connectOptionsCarryEverything() {
    MysqlUrl u = MysqlUrl.parse("mysql://a:b@h:4000/meta");
    MySQLConnectOptions o = u.connectOptions();
    assertEquals("h", o.getHost());
    assertEquals(4000, o.getPort());
    assertEquals("a", o.getUser());
    assertEquals("b", o.getPassword());
    assertEquals("meta", o.getDatabase());
    assertEquals("meta_t_x", u.connectOptions("meta_t_x").getDatabase());
  }

  @Test
  void toStringHidesThePassword() {
    String s = MysqlUrl.parse("mysql://a:topsecret@h:1/d").toString();
    assertFalse(s.contains("topsecret"), s);
    assertEquals("mysql://a:***@h:1/d", s);
  }

  @Test
  void badUrlsSayWhatIsWrong() {
    bad(null, "is empty");
    bad("  ", "is empty");
    bad("postgres://a@h/d", "must start with mysql://");
    bad("h:3306/d", "must start with mysql://");
    bad("mysql://h:3306/d", "no USER@");
    bad("mysql://@h:3306/d", "empty USER");
    bad("mysql://a@:3306/d", "empty HOST");
    bad("mysql://a@h:port/d", "PORT \"port\" is not a number");
    bad("mysql://a@h:70000/d", "outside 1-65535");
    bad("mysql://a@h:3306/", "has no DB");
    bad("mysql://a@h:3306", "is not of the form");
    bad("mysql://a@h/d-b", "[A-Za-z0-9_]");
    bad("mysql://a@h/d?ssl=true", "no query string");
    bad("mysql://a@h/" + "x".repeat(65), "1 to 64");
    bad("mysql://a:%zz@h/d", "bad percent-escape in PASS");
  }

  @Test
  void errorsNeverShowThePassword() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> MysqlUrl.parse("mysql://a:hunter2@h:99999/d"));
    assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
  }

  private static void bad(String url, String expected) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MysqlUrl.parse(url),
        String.valueOf(url));
    assertTrue(e.getMessage().contains(expected), url + " -> " + e.getMessage());
    assertTrue(e.getMessage().contains("mysql://USER[:PASS]@HOST[:PORT]/DB"), e.getMessage());
  }
}
