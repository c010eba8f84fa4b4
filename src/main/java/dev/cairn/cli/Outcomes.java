package dev.cairn.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What became of each input line, counted by reason: {@code stored}, or the relay's message
 * ({@code duplicate: ...}, {@code invalid: ...}, {@code blocked: ...}). Thread-safe. At most
 * {@link #MAX_REASONS} distinct reasons are kept; more are counted under their prefix.
 */
final class Outcomes {
  static final String STORED = "stored";
  static final int MAX_REASONS = 100;

  private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();
  private final LongAdder total = new LongAdder();
  private final LongAdder blank = new LongAdder();

  void add(String reason) {
    String r = reason == null || reason.isBlank() ? "error: (no message)" : reason;
    LongAdder c = counts.get(r);
    if (c == null) {
      if (counts.size() >= MAX_REASONS) {
        int colon = r.indexOf(':');
        r = (colon > 0 ? r.substring(0, colon) : "other") + ": (other reasons)";
      }
      c = counts.computeIfAbsent(r, k -> new LongAdder());
    }
    c.increment();
    total.increment();
  }

  void blankLine() {
    blank.increment();
  }

  /** Lines that got an outcome (blank lines not included). */
  long total() {
    return total.sum();
  }

  long count(String reason) {
    LongAdder c = counts.get(reason);
    return c == null ? 0 : c.sum();
  }

  long blank() {
    return blank.sum();
  }

  /** Lines stored or already there (duplicates, muted): what a caller need not look at. */
  long fine() {
    long n = 0;
    for (Map.Entry<String, LongAdder> e : counts.entrySet()) {
      if (isFine(e.getKey())) {
        n += e.getValue().sum();
      }
    }
    return n;
  }

  long refused() {
    return total() - fine();
  }

  static boolean isFine(String reason) {
    return reason.equals(STORED) || reason.startsWith("duplicate:") || reason.startsWith("muted:");
  }

  /** A copy, for tests and the summary. */
  Map<String, Long> snapshot() {
    Map<String, Long> out = new java.util.TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.sum()));
    return out;
  }

  /** "stored 123, duplicate 4, invalid 1": the prefixes, for progress lines. */
  String brief() {
    Map<String, Long> byPrefix = new java.util.LinkedHashMap<>();
    byPrefix.put(STORED, 0L);
    for (Map.Entry<String, Long> e : snapshot().entrySet()) {
      String k = e.getKey();
      int colon = k.indexOf(':');
      byPrefix.merge(colon > 0 ? k.substring(0, colon) : k, e.getValue(), Long::sum);
    }
    List<String> parts = new ArrayList<>();
    byPrefix.forEach((k, v) -> parts.add(k + " " + v));
    return String.join(", ", parts);
  }

  /** One line per reason, stored first, then the others by count. */
  void print(PrintStream out) {
    List<Map.Entry<String, Long>> rows = new ArrayList<>(snapshot().entrySet());
    rows.sort((a, b) -> {
      if (a.getKey().equals(STORED) != b.getKey().equals(STORED)) {
        return a.getKey().equals(STORED) ? -1 : 1;
      }
      int c = Long.compare(b.getValue(), a.getValue());
      return c != 0 ? c : a.getKey().compareTo(b.getKey());
    });
    if (rows.stream().noneMatch(e -> e.getKey().equals(STORED))) {
      rows.add(0, Map.entry(STORED, 0L));
    }
    for (Map.Entry<String, Long> e : rows) {
      out.printf("  %10d  %s%n", e.getValue(), e.getKey());
    }
    if (blank() > 0) {
      out.printf("  %10d  (blank lines, skipped)%n", blank());
    }
  }
}
