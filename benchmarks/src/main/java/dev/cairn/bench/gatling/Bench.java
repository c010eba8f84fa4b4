package dev.cairn.bench.gatling;

import dev.cairn.bench.load.Args;

/** Parameters of the Gatling simulations: system properties (-Dname=value), RELAY_URL also from the env. */
final class Bench {
  private Bench() {}

  static String relayUrl() {
    return Args.relayUrlDefault();
  }

  static String str(String name, String def) {
    String v = System.getProperty(name);
    return v == null || v.isBlank() ? def : v;
  }

  static String required(String name) {
    String v = System.getProperty(name);
    if (v == null || v.isBlank()) throw new IllegalArgumentException("-D" + name + "=... is required");
    return v;
  }

  /** Where RESULT lines go: -DresultFile; -DrelayName labels them (the summary's relay column). */
  static Args resultArgs() {
    java.util.List<String> args = new java.util.ArrayList<>();
    String f = System.getProperty("resultFile");
    if (f != null) args.addAll(java.util.List.of("--result-file", f));
    String relay = System.getProperty("relayName");
    if (relay != null && !relay.isBlank()) args.addAll(java.util.List.of("--relay-name", relay));
    return new Args(args.toArray(String[]::new));
  }

  static int integer(String name, int def) {
    return Integer.parseInt(str(name, Integer.toString(def)));
  }

  static double dbl(String name, double def) {
    return Double.parseDouble(str(name, Double.toString(def)));
  }
}
