package dev.cairn.bench.jmh;

import dev.cairn.nostr.Hex;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.sig.Bip340Verifier;
import fr.acinq.secp256k1.Secp256k1;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * BIP-340 verification. {@code bareLibsecp256k1} is the ceiling: only {@code Secp256k1.verifySchnorr}
 * on pre-decoded bytes, nothing else; every event needs one, so (score with -t = cores) is the most
 * events/s any relay on this JNI binding can ingest on this machine. {@code sigWorkerPath} is what a
 * Cairn sig-worker runs per event (dev.cairn.sig.Bip340Verifier.check: canonical id recomputation +
 * SHA-256, hex decoding, verifySchnorr). Run with -t 1 and -t (cores).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class VerifyBench {
  private static final Secp256k1 SECP = Secp256k1.get();
  private NostrEvent[] events;
  private byte[][] sigs;
  private byte[][] ids;
  private byte[][] pubkeys;
  private final Bip340Verifier verifier = new Bip340Verifier();
  private int i;

  @Setup
  public void setup() {
    List<NostrEvent> l = Fixtures.parsed(Fixtures.lines(1000));
    events = l.toArray(NostrEvent[]::new);
    sigs = new byte[events.length][];
    ids = new byte[events.length][];
    pubkeys = new byte[events.length][];
    for (int k = 0; k < events.length; k++) {
      sigs[k] = Hex.decode(events[k].sig());
      ids[k] = Hex.decode(events[k].id());
      pubkeys[k] = Hex.decode(events[k].pubkey());
      if (!SECP.verifySchnorr(sigs[k], ids[k], pubkeys[k]) || verifier.check(events[k]) != null) {
        throw new IllegalStateException("a generated event does not verify: " + events[k].id());
      }
    }
  }

  private int next() {
    int k = i;
    i = k + 1 == events.length ? 0 : k + 1;
    return k;
  }

  @Benchmark
  public boolean bareLibsecp256k1() {
    int k = next();
    return SECP.verifySchnorr(sigs[k], ids[k], pubkeys[k]);
  }

  @Benchmark
  public String sigWorkerPath() {
    return verifier.check(events[next()]);
  }
}
