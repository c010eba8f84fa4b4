package dev.cairn;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.logging.Logger;

/**
 * Memory settings a relay with many mostly idle connections wants, applied by the process itself so
 * that {@code java -jar cairn.jar} needs no flags. Each is the JVM's own knob; an operator's explicit
 * {@code -D}/{@code -XX} setting wins over it.
 *
 * G1 keeps up to 70% of the heap committed but free after a collection ({@code MaxHeapFreeRatio}) and
 * gives memory back only after one; a relay whose live set grows with its connections and falls with
 * them should give it back: at most 20% kept free, and a periodic concurrent cycle when idle. These
 * are manageable flags, set at run time (with G1, the default collector here; others ignore them).
 */
final class JvmTuning {
  private static final Logger LOG = Logger.getLogger(JvmTuning.class.getName());

  private JvmTuning() {}

  static void apply() {
    // Netty's pooled allocator: the adaptive one (Netty 4.2's default) held ~160 MB of direct memory
    // under a fan-out overload where the pooled one holds ~25 MB, for the same throughput.
    if (System.getProperty("io.netty.allocator.type") == null) {
      System.setProperty("io.netty.allocator.type", "pooled");
    }
    boolean explicit = ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
        .anyMatch(a -> a.contains("HeapFreeRatio"));
    if (explicit) {
      return;
    }
    try {
      HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      hotspot.setVMOption("MinHeapFreeRatio", "10");
      hotspot.setVMOption("MaxHeapFreeRatio", "20");
      // an idle relay runs a concurrent cycle now and then, which returns unused heap to the OS
      hotspot.setVMOption("G1PeriodicGCInterval", "60000");
    } catch (RuntimeException e) {
      LOG.fine("heap free ratios left at the JVM's defaults: " + e.getMessage());
    }
  }
}
