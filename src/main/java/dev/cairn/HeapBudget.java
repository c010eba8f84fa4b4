package dev.cairn;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * Keeps the heap the JVM holds (committed, so in the process's RSS) near {@code limits.heap_budget_bytes}
 * when the operator gave the JVM no heap size ({@code -Xmx}, {@code MaxRAMPercentage}, ...: then that is
 * the bound and this stays off).
 *
 * <p>Why: under a sustained overload on a small machine (2 cores shared with the clients), G1's young
 * pauses stretch past its GC-time goal, so after each one it commits more heap, up to a quarter of the
 * machine's memory (measured: 388 MB to 2.9 GB in 28 s around a live set of ~150 MB), and gives it back
 * only after a full or concurrent cycle that the live set never triggers. JDK 17 has no run-time knob
 * for that growth. So after a collection that leaves more than the budget committed, this asks for a full
 * collection, which compacts and returns what is free beyond {@code MaxHeapFreeRatio} ({@link JvmTuning})
 * to the OS. A live set that itself approaches the budget cannot be helped that way: the bound then
 * becomes twice the live set of the last forced collection (said once in the log), so it never collects
 * in a loop, and still bounds the heap.
 *
 * <p>One per process (Main), on its own daemon thread; the GC notifications arrive on a JVM thread.
 */
final class HeapBudget {
  private static final Logger LOG = Logger.getLogger(HeapBudget.class.getName());
  /** At most one forced collection per this many ms: the heap regrows in seconds under overload. */
  private static final long MIN_INTERVAL_MS = 1_000;
  /** Committed heap over this many times the last forced collection's live set is due, whatever the budget. */
  private static final long LIVE_FACTOR = 2;
  /** The cause HotSpot names a {@code System.gc()} collection by. */
  private static final String FORCED_CAUSE = "System.gc()";

  private final long budgetBytes;
  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private final ExecutorService collector = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "cairn-heap-budget");
    t.setDaemon(true);
    return t;
  });
  private final AtomicBoolean pending = new AtomicBoolean();
  private final AtomicLong collections = new AtomicLong();
  private volatile long lastForcedAt;
  /** The bound in force: the budget, or {@link #LIVE_FACTOR} x the live set when that is more. */
  private volatile long boundBytes;
  private volatile boolean warned;

  private HeapBudget(long budgetBytes) {
    this.budgetBytes = budgetBytes;
    this.boundBytes = budgetBytes;
  }

  /**
   * Starts watching collections when {@code budgetBytes > 0} and no heap size was given to the JVM;
   * returns null when it stays off (and logs why at start).
   */
  static HeapBudget start(long budgetBytes) {
    if (budgetBytes <= 0) {
      return null;
    }
    String explicit = explicitHeapOption();
    if (explicit != null) {
      LOG.info("heap budget off: the JVM's heap is bounded by " + explicit);
      return null;
    }
    HeapBudget budget = new HeapBudget(budgetBytes);
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener((n, handback) -> budget.collected(n), null, null);
      }
    }
    LOG.info("heap budget " + budgetBytes / (1024 * 1024) + " MB (limits.heap_budget_bytes): no -Xmx given;"
        + " a full collection is asked for when more heap than that stays committed");
    return budget;
  }

  /** {@code cairn_heap_budget_collections_total}: full collections this asked for. */
  void bindTo(MeterRegistry registry) {
    FunctionCounter.builder("cairn_heap_budget_collections_total", collections, AtomicLong::get)
        .description("Full collections asked for because more heap than limits.heap_budget_bytes stayed committed")
        .register(registry);
  }

  private void collected(Notification n) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
    long now = System.currentTimeMillis();
    if (FORCED_CAUSE.equals(info.getGcCause())) {
      long live = memory.getHeapMemoryUsage().getUsed();
      boundBytes = Math.max(budgetBytes, LIVE_FACTOR * live);
      if (boundBytes > budgetBytes && !warned) {
        warned = true;
        LOG.warning("heap budget: " + live / (1024 * 1024) + " MB stay live after a full collection, more than half"
            + " of limits.heap_budget_bytes (" + budgetBytes / (1024 * 1024) + " MB); collecting at twice the live"
            + " set instead. Raise the budget, or give the JVM a heap size (-Xmx)");
      }
      return;
    }
    if (memory.getHeapMemoryUsage().getCommitted() <= boundBytes || now - lastForcedAt < MIN_INTERVAL_MS
        || !pending.compareAndSet(false, true)) {
      return;
    }
    lastForcedAt = now;
    collector.execute(() -> {
      try {
        System.gc(); // a full, compacting collection; G1 then uncommits what is free beyond MaxHeapFreeRatio
        collections.incrementAndGet();
      } finally {
        pending.set(false);
      }
    });
  }

  /** The option that bounds the heap when the operator gave one, else null. */
  private static String explicitHeapOption() {
    HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
    for (String flag : List.of("MaxHeapSize", "MaxRAMPercentage", "MaxRAMFraction", "MaxRAM")) {
      try {
        VMOption o = hotspot.getVMOption(flag);
        if (o.getOrigin() != VMOption.Origin.DEFAULT && o.getOrigin() != VMOption.Origin.ERGONOMIC) {
          return flag + "=" + o.getValue();
        }
      } catch (IllegalArgumentException e) {
        // not a flag of this JVM
      }
    }
    return null;
  }
}
