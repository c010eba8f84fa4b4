package dev.cairn.outbox;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.delivery.outbox.RetryPolicy;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {
  @Test
  void fiveSecondsDoublingCappedAtThreeHundred() {
    List<Long> seconds = IntStream.rangeClosed(1, 10).mapToObj(n -> RetryPolicy.retryBackoff(n).toSeconds()).toList();
    assertEquals(List.of(5L, 10L, 20L, 40L, 80L, 160L, 300L, 300L, 300L, 300L), seconds);
    assertEquals(300, RetryPolicy.retryBackoff(1000).toSeconds());
  }

  @Test
  void outageBackoffGrowsAndIsCapped() {
    List<Long> seconds = IntStream.rangeClosed(1, 7).mapToObj(n -> RetryPolicy.outageBackoff(n).toSeconds()).toList();
    assertEquals(List.of(1L, 2L, 4L, 8L, 16L, 30L, 30L), seconds);
  }
}
