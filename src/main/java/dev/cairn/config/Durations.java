package dev.cairn.config;

import java.time.Duration;

/** Parses the config's durations: {@code 500ms}, {@code 30s}, {@code 10m}, {@code 168h}, {@code 7d}. */
public final class Durations {
  private Durations() {}

  public static Duration parse(String key, String text) {
    String s = text.trim();
    int i = 0;
    while (i < s.length() && Character.isDigit(s.charAt(i))) {
      i++;
    }
    if (i == 0) {
      throw new ConfigException(key + ": not a duration: \"" + text + "\" (use e.g. 500ms, 30s, 10m, 168h)");
    }
    long n = Long.parseLong(s.substring(0, i));
    return switch (s.substring(i)) {
      case "ms" -> Duration.ofMillis(n);
      case "s", "" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      case "d" -> Duration.ofDays(n);
      default -> throw new ConfigException(
          key + ": unknown duration unit in \"" + text + "\" (use ms, s, m, h or d)");
    };
  }
}
