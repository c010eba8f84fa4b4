package dev.cairn.store.mysql;

import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** What every MySQL dialect test class shares: the server, reached once per class (or the class skipped). */
abstract class MysqlTestBase {
  static TestMysqlServer mysql;
  static Vertx vertx;
  static Pool admin;

  @BeforeAll
  static void reachServer() {
    mysql = TestMysqlServer.reach("the MySQL dialect tests");
    vertx = mysql.vertx;
    admin = mysql.admin;
  }

  @AfterAll
  static void closeServer() {
    if (mysql != null) {
      mysql.close();
      mysql = null;
    }
  }
}
