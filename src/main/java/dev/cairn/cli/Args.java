package dev.cairn.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The options of one command: {@code --name value} or {@code --name=value} for valued options,
 * {@code --name} for flags, the rest positional ({@code --} ends the options; {@code -} is a
 * positional, stdin). An unknown option, a missing value, a value given to a flag, an option given
 * twice or too many positionals is a {@link UsageException}.
 */
final class Args {
  private final Map<String, String> values = new HashMap<>();
  private final Set<String> flags = new HashSet<>();
  private final List<String> positional = new ArrayList<>();

  private Args() {}

  /**
   * @param command for messages ({@code import}, {@code export}, {@code the relay})
   * @param valued options that take a value, with their dashes ({@code --tenant})
   * @param flagNames options that take none
   * @param maxPositional how many positional arguments the command takes
   */
  static Args parse(String command, List<String> argv, Set<String> valued, Set<String> flagNames, int maxPositional)
      throws UsageException {
    Args a = new Args();
    boolean options = true;
    for (int i = 0; i < argv.size(); i++) {
      String arg = argv.get(i);
      if (options && arg.equals("--")) {
        options = false;
        continue;
      }
      if (options && arg.startsWith("-") && !arg.equals("-")) {
        int eq = arg.indexOf('=');
        String name = eq > 0 ? arg.substring(0, eq) : arg;
        if (valued.contains(name)) {
          String value;
          if (eq > 0) {
            value = arg.substring(eq + 1);
          } else if (i + 1 < argv.size()) {
            value = argv.get(++i);
          } else {
            throw new UsageException(name + " needs a value");
          }
          if (a.values.put(name, value) != null) {
            throw new UsageException(name + " given twice");
          }
        } else if (flagNames.contains(name)) {
          if (eq > 0) {
            throw new UsageException(name + " takes no value");
          }
          if (!a.flags.add(name)) {
            throw new UsageException(name + " given twice");
          }
        } else {
          throw new UsageException("unknown option " + name + " for " + command);
        }
        continue;
      }
      if (a.positional.size() >= maxPositional) {
        throw new UsageException(maxPositional == 0
            ? command + " takes no argument \"" + arg + "\""
            : "unexpected argument \"" + arg + "\" for " + command);
      }
      a.positional.add(arg);
    }
    return a;
  }

  String value(String name) {
    return values.get(name);
  }

  String value(String name, String fallback) {
    return values.getOrDefault(name, fallback);
  }

  boolean has(String name) {
    return flags.contains(name) || values.containsKey(name);
  }

  List<String> positional() {
    return positional;
  }

  /** A whole number option within [min, max], or {@code fallback} when absent. */
  long number(String name, long fallback, long min, long max) throws UsageException {
    String v = values.get(name);
    if (v == null) {
      return fallback;
    }
    long n;
    try {
      n = Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(name + " must be a whole number, not \"" + v + "\"");
    }
    if (n < min || n > max) {
      throw new UsageException(name + " must be between " + min + " and " + max + ", not " + n);
    }
    return n;
  }
}
