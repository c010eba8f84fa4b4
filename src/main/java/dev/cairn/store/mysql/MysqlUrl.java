package dev.cairn.store.mysql;

import io.vertx.mysqlclient.MySQLConnectOptions;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code store.url} for the MySQL dialect: {@code mysql://USER[:PASS]@HOST[:PORT]/DB} (CONTRACT.md
 * section 7). DB is the meta database. USER and PASS may be percent-encoded (a password holding
 * {@code @}, {@code :} or {@code /}); an IPv6 host goes in brackets. The port defaults to 3306.
 *
 * <p>DB is restricted to {@code [A-Za-z0-9_]}, at most 64 characters: tenant database names are
 * derived from it and spliced into DDL ({@code CREATE DATABASE}), which cannot take parameters, so a
 * name that would need quoting is refused here rather than escaped there.
 */
public record MysqlUrl(String user, String password, String host, int port, String database) {

  public static final int DEFAULT_PORT = 3306;

  private static final String FORM = "mysql://USER[:PASS]@HOST[:PORT]/DB";
  // userinfo @ host-or-[ipv6] [:port] / db ; userinfo may not hold a raw '@' or '/' (percent-encode them).
  private static final Pattern URL = Pattern.compile(
      "^mysql://([^@/]*)@(\\[[0-9A-Fa-f:.]+\\]|[^:/\\[\\]@]*)(?::([^/]*))?/(.*)$");
  private static final Pattern DB = Pattern.compile("[A-Za-z0-9_]{1,64}");

  public MysqlUrl {
    if (password == null) {
      password = "";
    }
  }

  /**
   * Parses {@code url}.
   *
   * @throws IllegalArgumentException naming what is wrong and the expected form; the message never
   *     contains the password
   */
  public static MysqlUrl parse(String url) {
    if (url == null || url.isBlank()) {
      throw bad("is empty");
    }
    String s = url.strip();
    if (!s.startsWith("mysql://")) {
      int colon = s.indexOf("://");
      throw bad("must start with mysql:// (got " + (colon < 0 ? "no scheme" : s.substring(0, colon + 3)) + ")");
    }
    Matcher m = URL.matcher(s);
    if (!m.matches()) {
      if (s.indexOf('@') < 0) {
        throw bad("has no USER@ before the host");
      }
      throw bad("is not of the form " + FORM + " (percent-encode '@', ':' and '/' in USER and PASS)");
    }
    String userInfo = m.group(1);
    int colon = userInfo.indexOf(':');
    String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon), "USER");
    String password = colon < 0 ? "" : decode(userInfo.substring(colon + 1), "PASS");
    if (user.isEmpty()) {
      throw bad("has an empty USER");
    }
    String host = m.group(2);
    if (host.startsWith("[")) {
      host = host.substring(1, host.length() - 1);
    }
    if (host.isEmpty()) {
      throw bad("has an empty HOST");
    }
    int port = port(m.group(3));
    String db = m.group(4);
    if (db.isEmpty()) {
      throw bad("has no DB after the host (the meta database name)");
    }
    if (!DB.matcher(db).matches()) {
      throw bad("DB \"" + db + "\" must be 1 to 64 characters of [A-Za-z0-9_] (no query string either)");
    }
    return new MysqlUrl(user, password, host, port, db);
  }

  /** Connect options for {@link #database()}; charset utf8mb4 so text columns round-trip every code point. */
  public MySQLConnectOptions connectOptions() {
    return connectOptions(database);
  }

  /** Connect options for another database on the same server (a tenant database), same credentials. */
  public MySQLConnectOptions connectOptions(String otherDatabase) {
    return new MySQLConnectOptions()
        .setHost(host)
        .setPort(port)
        .setUser(user)
        .setPassword(password)
        .setDatabase(otherDatabase)
        .setCharset("utf8mb4")
        // The write path's statements are few and repeated: prepare each once per connection, not per
        // use (a bounded cache: MariaDB caps prepared statements server-wide, max_prepared_stmt_count).
        .setCachePreparedStatements(true)
        .setPreparedStatementCacheMaxSize(64);
  }

  /** The URL without its password, for logs. */
  @Override
  public String toString() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    return "mysql://" + user + (password.isEmpty() ? "" : ":***") + "@" + h + ":" + port + "/" + database;
  }

  private static int port(String raw) {
    if (raw == null) {
      return DEFAULT_PORT;
    }
    if (!raw.matches("\\d{1,5}")) {
      throw bad("PORT \"" + raw + "\" is not a number");
    }
    int p = Integer.parseInt(raw);
    if (p < 1 || p > 65535) {
      throw bad("PORT " + p + " is outside 1-65535");
    }
    return p;
  }

  private static String decode(String raw, String what) {
    try {
      // URLDecoder turns '+' into a space (form encoding); a URL's userinfo keeps '+' literally.
      return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw bad("has a bad percent-escape in " + what);
    }
  }

  private static IllegalArgumentException bad(String what) {
    return new IllegalArgumentException("store.url " + what + "; expected " + FORM);
  }
}
