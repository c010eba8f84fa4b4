package dev.cairn.cli;

import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.SqliteTenantStore;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Runs the CLI in-process against a data directory, with its own stdin/stdout/stderr. */
final class CliHarness {
  static final EventSigner ALICE = EventSigner.fromHex("0".repeat(63) + "a");
  static final EventSigner BOB = EventSigner.fromHex("0".repeat(63) + "b");

  record Result(int code, byte[] out, String err) {
    String outText() {
      return new String(out, StandardCharsets.UTF_8);
    }

    List<String> lines() {
      String t = outText();
      return t.isEmpty() ? List.of() : Arrays.asList(t.split("\n", -1)).subList(0, t.split("\n", -1).length - 1);
    }

    /** The count the summary shows for {@code reason} (0 when absent). */
    long count(String reason) {
      for (String l : outText().split("\n")) {
        String t = l.trim();
        int sp = t.indexOf("  ");
        if (sp > 0 && t.substring(sp).trim().equals(reason)) {
          try {
            return Long.parseLong(t.substring(0, sp).trim());
          } catch (NumberFormatException e) {
            // not a count line
          }
        }
      }
      return 0;
    }

    @Override
    public String toString() {
      return "exit " + code + "\n--- stdout\n" + outText() + "\n--- stderr\n" + err;
    }
  }

  private CliHarness() {}

  static Map<String, String> env(Path dataDir, String... more) {
    Map<String, String> env = new HashMap<>();
    env.put("CAIRN_STORE_DIR", dataDir.toString());
    for (int i = 0; i + 1 < more.length; i += 2) {
      env.put(more[i], more[i + 1]);
    }
    return env;
  }

  static Result run(Map<String, String> env, byte[] stdin, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Cli.run(List.of(args), new Cli.Io(env, new ByteArrayInputStream(stdin), out,
        new PrintStream(err, true, StandardCharsets.UTF_8)));
    return new Result(code, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
  }

  static Result run(Map<String, String> env, String... args) {
    return run(env, new byte[0], args);
  }

  static byte[] jsonl(List<NostrEvent> events) {
    StringBuilder b = new StringBuilder();
    for (NostrEvent e : events) {
      b.append(e.jsonText()).append('\n');
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  static long now() {
    return System.currentTimeMillis() / 1000;
  }

  /** {@code n} signed events of a few kinds by two authors, created before {@code base}. */
  static List<NostrEvent> events(int n, long base) {
    List<NostrEvent> out = new ArrayList<>();
    int[] kinds = {1, 1, 1, 7, 1, 30023, 1, 6};
    for (int i = 0; i < n; i++) {
      EventSigner s = i % 3 == 0 ? BOB : ALICE;
      int kind = kinds[i % kinds.length];
      List<List<String>> tags = kind == 30023 ? List.of(List.of("d", "art-" + i), List.of("t", "cli"))
          : List.of(List.of("t", "cli"), List.of("n", String.valueOf(i)));
      out.add(s.sign(base - n + i, kind, tags, "event " + i + " \"quoted\" café 🌋\n"));
    }
    return out;
  }

  /** Every stored event's JSON, in seq order. */
  static List<String> storedJson(Path dataDir, String tenant) throws Exception {
    List<String> out = new ArrayList<>();
    Path db = dataDir.resolve("tenants").resolve(tenant + ".db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT json FROM events ORDER BY seq")) {
      while (rs.next()) {
        out.add(new String(rs.getBytes(1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  /** One SQL count over the tenant DB. */
  static long count(Path dataDir, String tenant, String sql) throws Exception {
    Path db = dataDir.resolve("tenants").resolve(tenant + ".db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getLong(1) : -1;
    }
  }

  /** Stores {@code events} in the tenant's store as the relay would, at {@code now}. */
  static void store(Path dataDir, String tenant, List<NostrEvent> events, long now) {
    try (SqliteTenantStore s = SqliteTenantStore.open(dataDir.resolve("tenants").resolve(tenant + ".db"), 1)) {
      s.persist(events, now);
    }
  }
}
