package dev.cairn.bench.load;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Samples grouped by the second their operation began, counted from the first such second. */
class LatencyBySecondTest {
  private static final long MS = 1_000_000L;

  @Test
  void groupsBySecondOfTheStartFromTheFirst() {
    LatencyBySecond l = new LatencyBySecond();
    long t0 = 1_796_000_000_000L; // epoch ms, on a second's boundary
    for (int i = 1; i <= 100; i++) {
      l.record(t0 + 999, i * MS); // second 1: 1..100 ms
    }
    l.record(t0 + 2_000, 7 * MS); // second 3 (nothing began in second 2)
    l.record(t0 + 1_000 + 2_500, 3 * MS); // second 4
    assertEquals("1: 50.0/99.0, 3: 7.0/7.0, 4: 3.0/3.0", l.describe());
  }

  @Test
  void emptyWithoutSamples() {
    assertEquals("", new LatencyBySecond().describe());
  }
}
