package dev.cairn.config;

import dev.cairn.store.StoreException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** A failure repeated thousands of times is a few lines: the first, one summary per interval, the end. */
class RepeatedFailureLogTest {
  private final List<LogRecord> lines = new ArrayList<>();
  private final Logger logger = Logger.getAnonymousLogger();

  RepeatedFailureLogTest() {
    logger.setUseParentHandlers(false);
    logger.addHandler(new Handler() {
      @Override
      public void publish(LogRecord r) {
        lines.add(r);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    });
  }

  @Test
  void theFirstFailureThenOneSummaryPerIntervalThenTheRecovery() {
    RepeatedFailureLog log = new RepeatedFailureLog(logger, Level.SEVERE, "group commit for tenant t", 10_000);
    RuntimeException full = new StoreException("persist batch failed", new RuntimeException("disk is full"));
    for (int i = 0; i < 5_000; i++) { // 5,000 failures over 25 s
      log.failed("1 event(s) refused", full, 1_000 + i * 5L);
    }
    log.succeeded(30_000);

    assertEquals(4, lines.size(), lines.stream().map(LogRecord::getMessage).toList().toString());
    assertEquals(Level.SEVERE, lines.get(0).getLevel());
    assertEquals("group commit for tenant t failed: 1 event(s) refused", lines.get(0).getMessage());
    assertEquals(full, lines.get(0).getThrown());
    assertTrue(lines.get(1).getMessage().startsWith("group commit for tenant t still failing: 2000 more failure(s)"
        + " in the last 10 s, 2001 since "), lines.get(1).getMessage());
    assertTrue(lines.get(2).getMessage().contains("still failing: 2000 more failure(s) in the last 10 s, 4001 since"),
        lines.get(2).getMessage());
    assertEquals(Level.WARNING, lines.get(3).getLevel());
    assertEquals("group commit for tenant t works again after 5000 failure(s) over 29000 ms", lines.get(3).getMessage());

    log.succeeded(31_000); // nothing was failing
    log.failed("2 event(s) refused", full, 40_000); // a new episode starts with a full line again
    assertEquals(5, lines.size());
    assertEquals("group commit for tenant t failed: 2 event(s) refused", lines.get(4).getMessage());
  }
}
