package dev.cairn.store.signal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The seed's defaults, the checks, and the optional liveness poll (no DB needed). */
class SignalSettingsTest {

  @Test
  void defaultsAreTheSeeds() {
    SignalSettings s = SignalSettings.defaults("pod-1");
    assertEquals(Duration.ofMillis(200), s.pollInterval());
    assertEquals(Duration.ofMillis(200), s.notifyCoalesce());
    assertEquals(Duration.ofMinutes(10), s.stallBound());
    assertEquals(Duration.ofHours(1), s.notifyRetention());
    assertEquals(Duration.ofSeconds(30), s.deadAfter());
    assertEquals(Duration.ZERO, s.livenessPoll(), "the liveness poll is off by default");
    assertTrue(SignalSettings.defaultPodId().endsWith("-" + ProcessHandle.current().pid()));
    assertThrows(IllegalArgumentException.class, () -> SignalSettings.defaults(""));
    assertThrows(IllegalArgumentException.class, () -> new SignalSettings("p", Duration.ZERO, Duration.ofMillis(200),
        500, 20, Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(6),
        Duration.ofMinutes(10), Duration.ofHours(1), Duration.ofMinutes(1), 5_000, 20, Duration.ZERO),
        "dead_after below twice the heartbeat");
  }

  @Test
  void livenessPollWakesOnlyLocalTenantsNotWokenWithinTheInterval() {
    List<Set<String>> wakes = new java.util.ArrayList<>();
    Set<String> local = new HashSet<>(Set.of("a", "b"));
    SignalSettings on = new SignalSettings("p", Duration.ofMillis(200), Duration.ofMillis(200), 500, 20,
        Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30),
        Duration.ofMinutes(10), Duration.ofHours(1), Duration.ofMinutes(1), 5_000, 20, Duration.ofHours(1));
    LivenessPoll poll = new LivenessPoll(null, on, wakes::add, () -> Set.copyOf(local));
    assertTrue(poll.enabled());
    poll.tracking().accept(Set.of("a")); // the poller woke a
    assertEquals(Set.of("b"), poll.check(), "a was woken within the interval");
    assertEquals(Set.of(), poll.check(), "b now too");
    assertEquals(List.of(Set.of("a"), Set.of("b")), wakes);
    assertFalse(new LivenessPoll(null, SignalSettings.defaults("p"), wakes::add, Set::of).enabled());
  }
}
