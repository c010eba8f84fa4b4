package dev.cairn.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.bench.load.RelayCpu;
import dev.cairn.bench.load.Result;
import java.security.MessageDigest;
import org.junit.jupiter.api.Test;

/** The relay CPU reading: /proc/PID/stat's user + system time of a process, across its threads. */
class RelayCpuTest {
  @Test
  void countsTheCpuTimeAProcessSpendsBetweenTwoReadings() throws Exception {
    RelayCpu cpu = RelayCpu.start(ProcessHandle.current().pid());
    assertTrue(cpu.seconds() >= 0 && cpu.seconds() < 0.1, "right after the start: " + cpu.seconds());
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    byte[] b = new byte[4096];
    long giveUp = System.nanoTime() + 20_000_000_000L; // the machine may be busy: CPU time, not wall time
    while (cpu.seconds() < 0.3 && System.nanoTime() < giveUp) {
      for (int i = 0; i < 1000; i++) {
        b[i % b.length] ^= sha.digest(b)[0];
      }
    }
    assertTrue(cpu.seconds() >= 0.3, "a busy thread's CPU time was not counted: " + cpu.seconds());
  }

  @Test
  void aProcessThatIsNotThereIsNotMeasured() {
    assertTrue(RelayCpu.start(-1).seconds() < 0);
    assertTrue(RelayCpu.start(Integer.MAX_VALUE).seconds() < 0);
  }

  @Test
  void thePerUnitFigureIsCpuTimeOverUnits() {
    Result r = new Result("ingest", "test");
    RelayCpu.put(r, "relay_cpu_us_per_event", 2.0, 4000, 1e6);
    assertEquals(500.0, r.json().getDouble("relay_cpu_us_per_event"));
    assertEquals(2.0, r.json().getDouble("relay_cpu_s"));
    Result none = new Result("ingest", "test");
    RelayCpu.put(none, "relay_cpu_us_per_event", -1, 4000, 1e6); // not measured
    RelayCpu.put(none, "relay_cpu_us_per_event", 2.0, 0, 1e6); // nothing done
    assertFalse(none.json().containsKey("relay_cpu_us_per_event"));
  }
}
