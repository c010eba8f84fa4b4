package dev.cairn.store.mysql;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.mysqlclient.MySQLBatchException;
import io.vertx.mysqlclient.MySQLException;
import org.junit.jupiter.api.Test;

/**
 * Which failures make MysqlOutboxStore run a claim or settle again: InnoDB's deadlock (1213), also when
 * a batch reports it for one of its rows (how a settle's UPDATEs fail), and nothing else.
 */
class MysqlOutboxDeadlockTest {
  private static MySQLException error(int code) {
    return new MySQLException("server said " + code, code, "40001");
  }

  @Test
  void aDeadlockIsRunAgainAlsoWhenABatchReportsItForOneRow() {
    assertTrue(MysqlOutboxStore.deadlock(error(1213)));
    MySQLBatchException batch = new MySQLBatchException();
    batch.reportError(3, error(1213));
    assertTrue(MysqlOutboxStore.deadlock(batch), "a settle's batch whose row lost a deadlock");
  }

  @Test
  void otherFailuresAreNot() {
    assertFalse(MysqlOutboxStore.deadlock(error(1062)), "duplicate key");
    assertFalse(MysqlOutboxStore.deadlock(error(1205)), "lock wait timeout: the statement alone was undone");
    MySQLBatchException batch = new MySQLBatchException();
    batch.reportError(0, error(1146));
    assertFalse(MysqlOutboxStore.deadlock(batch));
    assertFalse(MysqlOutboxStore.deadlock(new IllegalStateException("closed")));
  }
}
