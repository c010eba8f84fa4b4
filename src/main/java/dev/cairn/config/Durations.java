package dev.cairn.config;

import java.time.Duration;

/** Parses the config's durations: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 168h}, {@code 7d}. */
public final class Durations {
  /**
   * The longest duration accepted. Callers turn durations into millis or nanos and add them to clocks;
   * {@code toNanos()} overflows past 292 years, so anything above 100 years is refused here as a
   * ConfigException naming the key, instead of an ArithmeticException somewhere later.
   */
  public static final Duration MAX = Duration.ofDays(36_500);

  private Durations() {}

  public static Duration parse(String key, String text) {
    String s = text.trim();
    int i = 0;
    // ASCII digits only: Character.isDigit and Long.parseLong would also take "١٠s" as 10 seconds
    while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      i++;
    }
    if (i == 0) {
      throw new ConfigException(key + ": not a duration: \"" + text + "\" (use e.g. 500ms, 30s, 10m, 168h)");
    }
    String unit = s.substring(i);
    long perUnit = switch (unit) {
      case "ms" -> 1L;
      case "s", "" -> 1_000L;
      case "m" -> 60_000L;
      case "h" -> 3_600_000L;
      case "d" -> 86_400_000L;
      default -> throw new ConfigException(
          key + ": unknown duration unit in \"" + text + "\" (use ms, s, m, h or d)");
    };
    // Compare in millis before multiplying: no overflow on any number of digits (leading zeros allowed).
    long maxN = MAX.toMillis() / perUnit;
    int first = 0;
    while (first < i - 1 && s.charAt(first) == '0') {
      first++;
    }
    if (i - first > 18 || Long.parseLong(s.substring(first, i)) > maxN) {
      throw new ConfigException(key + ": \"" + text + "\" is longer than the 100 years (36500d) a duration may be");
    }
    return Duration.ofMillis(Long.parseLong(s.substring(first, i)) * perUnit);
  }
}
