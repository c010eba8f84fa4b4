package dev.cairn.crash;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Crash harness: rounds of kill -9 under load against the packaged relay ({@code target/cairn.jar},
 * so it runs in failsafe's integration-test phase, after {@code package}). Each round is a fresh data
 * directory and a kill moment drawn from a seeded random; {@code -Dcrash.rounds=N} (default 3, the CI
 * form; {@code scripts/crash-harness.sh} runs 20) and {@code -Dcrash.seed=S} to replay a round's kill
 * moment (the load's own timing is not reproducible, the seed only fixes when the kill comes).
 *
 * <p>Per-round counts and a summary line go to stdout and to {@code crash.report} (default
 * {@code target/crash-harness.txt}), since failsafe keeps test output in its reports directory.
 */
@Tag("crash")
class CrashHarnessIT {

  @Test
  void killNineUnderLoadLosesNothingAndDoublesNothing() throws Exception {
    int rounds = Integer.getInteger("crash.rounds", 3);
    // db (the default backend, the CI form); nats; or both, alternating (even rounds on nats)
    String backends = System.getProperty("crash.backend", "db");
    long seed = Long.getLong("crash.seed", new Random().nextLong());
    Path report = Path.of(System.getProperty("crash.report", "target/crash-harness.txt"));
    Files.createDirectories(report.toAbsolutePath().getParent());
    Files.writeString(report, "");
    print(report, "crash harness: " + rounds + " rounds on " + backends + ", seed " + seed + " (-Dcrash.seed=" + seed + " to replay the kill"
        + " moments), jar " + RelayProcess.jar().toAbsolutePath());
    Random seeds = new Random(seed);
    RoundResult total = RoundResult.zero();
    for (int n = 1; n <= rounds; n++) {
      long roundSeed = seeds.nextLong();
      Path dir = Files.createTempDirectory("cairn-crash-r" + n + "-");
      String backend = backends.equals("both") ? (n % 2 == 0 ? "nats" : "db") : backends;
      CrashRound round = new CrashRound(n, roundSeed, dir, backend);
      long t0 = System.nanoTime();
      RoundResult result;
      try {
        CrashRound.Outcome o = round.run();
        result = new RoundChecks(round, o.witness(), o.atKill(), o.recovery()).verify(round, (System.nanoTime() - t0) / 1_000_000);
      } catch (Throwable e) {
        // the data directory and the relay's log stay for the post-mortem
        print(report, "round " + n + "/" + rounds + " " + backend + " seed " + roundSeed + " FAILED, data and relay.log kept in " + dir
            + ": " + e);
        throw e;
      }
      print(report, "round " + n + "/" + rounds + " " + backend + " seed " + roundSeed + ", " + result.elapsedMs() + " ms ("
          + round.phases() + "): " + result.counts());
      total = total.plus(result);
      delete(dir);
    }
    print(report, "crash harness summary: " + rounds + " rounds on " + backends + ", seed " + seed + ", " + total.elapsedMs() / 1000 + " s: "
        + total.counts() + "; lost 0, doubled within a lifetime 0, SSE gaps 0, SSE duplicates 0");
  }

  private static void print(Path report, String line) throws IOException {
    System.out.println(line);
    Files.writeString(report, line + System.lineSeparator(), StandardOpenOption.APPEND);
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }
}
