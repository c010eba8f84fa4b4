package dev.cairn.cli;

import static dev.cairn.cli.CliHarness.ALICE;
import static dev.cairn.cli.CliHarness.BOB;
import static dev.cairn.cli.CliHarness.env;
import static dev.cairn.cli.CliHarness.events;
import static dev.cairn.cli.CliHarness.jsonl;
import static dev.cairn.cli.CliHarness.now;
import static dev.cairn.cli.CliHarness.run;
import static dev.cairn.cli.CliHarness.storedJson;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.cli.CliHarness.Result;
import dev.cairn.nostr.Filter;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.store.StoredEvent;
import dev.cairn.store.SqliteTenantStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** cairn export and cairn import (direct mode) against real stores. */
class ExportImportTest {
  @TempDir Path tmp;

  private Path dir(String name) {
    return tmp.resolve(name);
  }

  @Test
  void exportWritesEveryStoredEventAsStoredInSeqOrder() throws Exception {
    Path a = dir("a");
    long now = now();
    List<NostrEvent> evs = events(60, now);
    CliHarness.store(a, "default", evs, now);
    List<String> stored = storedJson(a, "default");
    assertEquals(60, stored.size());

    Result r = run(env(a), "export");
    assertEquals(0, r.code(), r.toString());
    assertEquals(stored, r.lines(), "one line per event, the stored bytes, in seq order");
    assertTrue(r.err().contains("export: 60 events"), r.err());
  }

  @Test
  void exportScansInSeqOrderWithoutSorting() throws Exception {
    Path a = dir("a");
    CliHarness.store(a, "default", events(10, now()), now());
    ExportCommand.Query q = ExportCommand.query(5, 10, Set.of(1, 7), false, now());
    List<String> plan = new ArrayList<>();
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + a.resolve("tenants/default.db"));
        java.sql.PreparedStatement ps = c.prepareStatement("EXPLAIN QUERY PLAN " + q.sql())) {
      for (int i = 0; i < q.params().size(); i++) {
        ps.setLong(i + 1, q.params().get(i));
      }
      try (java.sql.ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          plan.add(rs.getString("detail"));
        }
      }
    }
    assertEquals(List.of("SCAN events"), plan, "a rowid scan, no index, no temp b-tree: " + plan);
  }

  @Test
  void exportFiltersBySinceUntilKindsAndSkipsExpired() throws Exception {
    Path a = dir("a");
    long now = now();
    List<NostrEvent> evs = events(40, now); // created_at now-40 .. now-1
    // expired (an hour ago) and still to expire: stored as of a time before they expire
    NostrEvent expired = ALICE.sign(now - 7200, 1, List.of(List.of("expiration", String.valueOf(now - 3600))), "gone");
    NostrEvent later = ALICE.sign(now - 7200, 1, List.of(List.of("expiration", String.valueOf(now + 3600))), "stays");
    List<NostrEvent> all = new ArrayList<>(evs);
    all.add(expired);
    all.add(later);
    CliHarness.store(a, "default", all, now - 7300);

    Result plain = run(env(a), "export", "--quiet");
    assertEquals(0, plain.code(), plain.toString());
    assertEquals(41, plain.lines().size());
    assertFalse(plain.outText().contains(expired.id()), "an expired event is not exported");
    assertTrue(plain.outText().contains(later.id()));
    assertEquals("", plain.err(), "--quiet: nothing on stderr");

    Result withExpired = run(env(a), "export", "--include-expired", "--quiet");
    assertEquals(42, withExpired.lines().size());

    long since = now - 30;
    long until = now - 11;
    Result window = run(env(a), "export", "--since", String.valueOf(since), "--until=" + until, "--quiet");
    List<String> expected = evs.stream().filter(e -> e.createdAt() >= since && e.createdAt() <= until)
        .map(NostrEvent::jsonText).toList();
    assertEquals(expected, window.lines());

    Result kinds = run(env(a), "export", "--kinds", "7,30023", "--quiet");
    List<String> expectedKinds = evs.stream().filter(e -> e.kind() == 7 || e.kind() == 30023)
        .map(NostrEvent::jsonText).toList();
    assertFalse(expectedKinds.isEmpty());
    assertEquals(expectedKinds, kinds.lines());

    Result none = run(env(a), "export", "--tenant", "nosuch");
    assertEquals(1, none.code(), none.toString());
    assertTrue(none.err().contains("has no store"), none.err());
  }

  @Test
  void importOfAnExportGivesTheSameStoreAndASecondImportOnlyDuplicates() throws Exception {
    Path a = dir("a");
    Path b = dir("b");
    long now = now();
    List<NostrEvent> evs = new ArrayList<>(events(300, now));
    // replaced and deleted rows leave seq gaps in the source store
    evs.add(ALICE.sign(now - 5, 0, List.of(), "{\"name\":\"old\"}"));
    evs.add(ALICE.sign(now - 4, 0, List.of(), "{\"name\":\"new\"}"));
    NostrEvent doomed = BOB.sign(now - 3, 1, List.of(), "doomed");
    evs.add(doomed);
    evs.add(BOB.sign(now - 2, 5, List.of(List.of("e", doomed.id())), ""));
    CliHarness.store(a, "default", evs, now);

    Result export = run(env(a), "export", "--quiet");
    assertEquals(0, export.code(), export.toString());
    Path file = tmp.resolve("a.jsonl");
    Files.write(file, export.out());

    Result imp = run(env(b), "import", "--batch", "64", "--threads", "2", "--quiet", file.toString());
    assertEquals(0, imp.code(), imp.toString());
    int lines = export.lines().size();
    assertEquals(lines, imp.count("stored"), imp.toString());
    assertTrue(imp.outText().contains("direct into"), imp.toString());
    assertEquals(storedJson(a, "default"), storedJson(b, "default"), "same events, same bytes, same order");
    assertEquals(query(a), query(b), "same REQ answer");
    // the outbox and the change feed got their rows, as for a live write
    assertEquals(lines, CliHarness.count(b, "default", "SELECT COUNT(*) FROM event_queue WHERE type = 'EventStored'"));
    assertEquals(lines, CliHarness.count(b, "default", "SELECT COUNT(*) FROM feed_events WHERE type = 'stored'"));
    assertTrue(Files.exists(b.resolve("meta.db")), "the tenant is registered in meta.db");

    Result again = run(env(b), "import", "--quiet", file.toString());
    assertEquals(0, again.code(), again.toString());
    assertEquals(0, again.count("stored"), again.toString());
    assertEquals(lines, again.count("duplicate: already have this event"), again.toString());
    assertEquals(storedJson(a, "default"), storedJson(b, "default"));

    // stdin works the same (nothing new: all duplicates)
    Result stdin = CliHarness.run(env(b), export.out(), "import", "--quiet");
    assertEquals(lines, stdin.count("duplicate: already have this event"), stdin.toString());
  }

  private static List<String> query(Path dataDir) {
    try (SqliteTenantStore s = SqliteTenantStore.open(dataDir.resolve("tenants/default.db"), 1)) {
      Filter all = new Filter(null, null, null, null, null, null, 5000, null);
      return s.query(List.of(all), Long.MAX_VALUE, 5000, 5000, now()).stream()
          .map(e -> new String(e.json(), StandardCharsets.UTF_8)).toList();
    }
  }

  @Test
  void badLinesAreCountedByReason() throws Exception {
    Path b = dir("b");
    long now = now();
    List<NostrEvent> good = events(5, now);
    NostrEvent victim = ALICE.sign(now - 100, 1, List.of(), "original");
    String badId = victim.jsonText().replace("original", "tampered");
    String sig = victim.sig();
    String flipped = (sig.charAt(0) == '0' ? "1" : "0") + sig.substring(1);
    String badSig = victim.jsonText().replace(sig, flipped);
    StringBuilder in = new StringBuilder();
    in.append(good.get(0).jsonText()).append('\n');
    in.append("\n   \n"); // blank lines
    in.append("not json at all\n");
    in.append("{\"id\":\"abc\"}\n");
    in.append(badId).append('\n');
    in.append(badSig).append('\n');
    in.append("[\"EVENT\",").append(good.get(1).jsonText()).append("]\n");
    in.append("[\"EVENT\",\"sub1\",").append(good.get(2).jsonText()).append("]\r\n");
    in.append("[\"REQ\",\"x\",{}]\n");
    in.append(good.get(3).jsonText()).append('\n');
    in.append(good.get(3).jsonText()).append('\n'); // the same event twice
    in.append(good.get(4).jsonText()); // no final newline

    Result r = CliHarness.run(env(b), in.toString().getBytes(StandardCharsets.UTF_8), "import", "--quiet");
    assertEquals(3, r.code(), "some lines were refused: " + r);
    assertEquals(5, r.count("stored"), r.toString());
    assertEquals(1, r.count("duplicate: already have this event"), r.toString());
    assertEquals(1, r.count(EventLines.NOT_JSON), r.toString());
    assertEquals(1, r.count("invalid: id must be 64 lowercase hex characters"), r.toString());
    assertEquals(1, r.count("invalid: event id does not match the event's content"), r.toString());
    assertEquals(1, r.count("invalid: signature does not verify"), r.toString());
    assertEquals(1, r.count(EventLines.NOT_EVENT), r.toString());
    assertTrue(r.outText().contains("2  (blank lines, skipped)"), r.toString());
    assertTrue(r.outText().startsWith("import: 11 events, tenant default"), r.toString());
    assertEquals(5, storedJson(b, "default").size());
  }

  @Test
  void aDeletionInTheInputDeletesItsTargetAndRefusesALaterCopy() throws Exception {
    Path b = dir("b");
    long now = now();
    NostrEvent note = ALICE.sign(now - 50, 1, List.of(), "regret");
    NostrEvent deletion = ALICE.sign(now - 40, 5, List.of(List.of("e", note.id())), "");
    NostrEvent other = BOB.sign(now - 45, 1, List.of(), "unrelated");
    Result r = CliHarness.run(env(b), jsonl(List.of(note, other, deletion, note)), "import", "--quiet");
    assertEquals(3, r.code(), r.toString());
    assertEquals(3, r.count("stored"), r.toString());
    assertEquals(1, r.count("blocked: deleted by its author"), r.toString());
    assertTrue(r.outText().contains("0 replaced (NIP-01), 1 deleted (NIP-09)"), r.toString());
    List<String> stored = storedJson(b, "default");
    assertEquals(List.of(other.jsonText(), deletion.jsonText()), stored);

    // the deletion is in the store now: a later import of the note is refused too
    Result later = CliHarness.run(env(b), jsonl(List.of(note)), "import", "--quiet");
    assertEquals(1, later.count("blocked: deleted by its author"), later.toString());
  }

  @Test
  void replaceableAndAddressableEventsKeepTheNewest() throws Exception {
    Path b = dir("b");
    long now = now();
    NostrEvent oldProfile = ALICE.sign(now - 100, 0, List.of(), "{\"v\":1}");
    NostrEvent newProfile = ALICE.sign(now - 50, 0, List.of(), "{\"v\":2}");
    NostrEvent oldArticle = ALICE.sign(now - 100, 30023, List.of(List.of("d", "x")), "v1");
    NostrEvent newArticle = ALICE.sign(now - 50, 30023, List.of(List.of("d", "x")), "v2");
    // newest first for the profile (the older one then is a duplicate), oldest first for the article
    Result r = CliHarness.run(env(b), jsonl(List.of(newProfile, oldProfile, oldArticle, newArticle)),
        "import", "--quiet");
    assertEquals(0, r.code(), r.toString());
    assertEquals(3, r.count("stored"), r.toString());
    assertEquals(1, r.count("duplicate: have a newer version of this event"), r.toString());
    assertTrue(r.outText().contains("1 replaced (NIP-01)"), r.toString());
    assertEquals(List.of(newProfile.jsonText(), newArticle.jsonText()), storedJson(b, "default"));
  }

  @Test
  void theOfflineRulesOfTheTenantApply() throws Exception {
    Path b = dir("b");
    long now = now();
    NostrEvent fine = ALICE.sign(now - 10, 1, List.of(), "fine");
    NostrEvent blockedAuthor = BOB.sign(now - 10, 1, List.of(), "from bob");
    NostrEvent blockedWord = ALICE.sign(now - 10, 1, List.of(), "buy SPAM now");
    NostrEvent expired = ALICE.sign(now - 10, 1, List.of(List.of("expiration", String.valueOf(now - 5))), "late");
    NostrEvent future = ALICE.sign(now + 3600, 1, List.of(), "from the future");
    NostrEvent ancient = ALICE.sign(1_000_000, 1, List.of(), "from 1970");
    NostrEvent ephemeral = ALICE.sign(now - 10, 20001, List.of(), "ephemeral");
    NostrEvent prot = ALICE.sign(now - 10, 1, List.of(List.of("-")), "protected");
    Path conf = tmp.resolve("conf.json");
    Files.writeString(conf, "{\"limits\": {\"created_at_lower\": 3600}, \"policy\": {\"block_pubkeys\": [\""
        + BOB.pubkey() + "\"], \"block_words\": [\"spam\"]}}");
    byte[] in = jsonl(List.of(fine, blockedAuthor, blockedWord, expired, future, ancient, ephemeral, prot));

    Result r = CliHarness.run(env(b), in, "import", "--config", conf.toString(), "--quiet");
    assertEquals(3, r.code(), r.toString());
    assertEquals(2, r.count("stored"), "fine, and ancient: no created_at lower bound for imports: " + r);
    assertEquals(1, r.count("blocked: this pubkey may not publish here"), r.toString());
    assertEquals(1, r.count("blocked: content contains a blocked word"), r.toString());
    assertEquals(1, r.count("invalid: event has expired"), r.toString());
    assertEquals(1, r.count("invalid: created_at is more than 900 seconds in the future"), r.toString());
    assertEquals(1, r.count("invalid: ephemeral events are not stored"), r.toString());
    assertEquals(1, r.count(dev.cairn.policy.OfflineRules.PROTECTED), r.toString());

    Result allowed = CliHarness.run(env(b), jsonl(List.of(prot)), "import", "--config", conf.toString(),
        "--allow-protected", "--quiet");
    assertEquals(1, allowed.count("stored"), allowed.toString());
  }

  @Test
  void theBansNip86AdminsSetApplyToADirectImport() throws Exception {
    Path b = dir("nip86");
    long now = now();
    NostrEvent fromBob = BOB.sign(now - 10, 1, List.of(), "bob is banned");
    NostrEvent bannedEvent = ALICE.sign(now - 10, 1, List.of(), "this one is banned");
    NostrEvent fine = ALICE.sign(now - 9, 1, List.of(), "fine");
    try (dev.cairn.admin.RelayAdmin admin = new dev.cairn.admin.RelayAdmin(b.resolve("meta.db"))) {
      admin.open();
      admin.set("default", dev.cairn.admin.AdminList.BANNED_PUBKEYS, BOB.pubkey(), "spam", true);
      admin.set("default", dev.cairn.admin.AdminList.BANNED_EVENTS, bannedEvent.id(), "", true);
    }
    Result r = CliHarness.run(env(b), jsonl(List.of(fromBob, bannedEvent, fine)), "import", "--quiet");
    assertEquals(1, r.count("stored"), r.toString());
    assertEquals(1, r.count("blocked: this pubkey was banned by the relay's admins"), r.toString());
    assertEquals(1, r.count("blocked: this event was banned by the relay's admins"), r.toString());
  }

  @Test
  void aStrfryExportImports() throws Exception {
    byte[] strfry = resource("strfry-export.jsonl");
    byte[] published = resource("strfry-published.jsonl");
    Path b = dir("b");
    Result r = CliHarness.run(env(b), strfry, "import", "--quiet");
    assertEquals(0, r.code(), r.toString());
    assertEquals(10, r.count("stored"), r.toString());

    // What strfry kept of what it was sent is what Cairn keeps of it: same write rules.
    Path c = dir("c");
    Result direct = CliHarness.run(env(c), published, "import", "--quiet");
    assertEquals(13, direct.count("stored"), direct.toString());
    assertEquals(ids(b), ids(c), "same events survive replacement and deletion as in strfry");

    // Cairn's export of it: the same events as strfry's (strfry orders fields by name; the events are equal)
    Result export = run(env(b), "export", "--quiet");
    List<String> theirs = new String(strfry, StandardCharsets.UTF_8).lines().toList();
    assertEquals(theirs.size(), export.lines().size());
    for (int i = 0; i < theirs.size(); i++) {
      assertEquals(new io.vertx.core.json.JsonObject(theirs.get(i)), new io.vertx.core.json.JsonObject(
          export.lines().get(i)), "line " + i + ": same event, same order");
    }
    // the deleted note is refused if it comes back
    String doomed = new String(published, StandardCharsets.UTF_8).lines()
        .filter(l -> l.contains("to be deleted")).findFirst().orElseThrow();
    Result back = CliHarness.run(env(b), (doomed + "\n").getBytes(StandardCharsets.UTF_8), "import", "--quiet");
    assertEquals(1, back.count("blocked: deleted by its author"), back.toString());
  }

  private static Set<String> ids(Path dataDir) throws Exception {
    return storedJson(dataDir, "default").stream()
        .map(j -> new io.vertx.core.json.JsonObject(j).getString("id")).collect(Collectors.toSet());
  }

  private static byte[] resource(String name) throws Exception {
    try (var in = ExportImportTest.class.getResourceAsStream("/cli/" + name)) {
      return in.readAllBytes();
    }
  }

  @Test
  void importOfAFileReportsRateAndAnUnknownTenantIsAUsageError() throws Exception {
    Path b = dir("b");
    Path file = tmp.resolve("in.jsonl");
    Files.write(file, jsonl(events(20, now())));
    Result r = run(env(b), "import", file.toString());
    assertEquals(0, r.code(), r.toString());
    assertTrue(r.outText().matches("(?s)import: 20 events, tenant default, direct into .*default\\.db, in .*"),
        r.toString());
    Result unknown = run(env(b), "import", "--tenant", "acme", file.toString());
    assertEquals(2, unknown.code(), unknown.toString());
    assertTrue(unknown.err().contains("tenant \"acme\" is not in the config"), unknown.err());
    Result tenant = run(env(b, "CAIRN_TENANTS", "[{\"id\":\"acme\"}]"), "import", "--tenant", "acme", "--quiet",
        file.toString());
    assertEquals(20, tenant.count("stored"), tenant.toString());
    assertEquals(20, storedJson(b, "acme").size());
    Result missing = run(env(b), "import", tmp.resolve("nope.jsonl").toString());
    assertEquals(1, missing.code());
  }

  @Test
  void helpVersionAndUsageErrors() {
    Map<String, String> env = Map.of();
    Result help = run(env, "--help");
    assertEquals(0, help.code());
    for (String s : List.of("export", "import", "--since", "--until", "--kinds", "--include-expired", "--url",
        "--direct", "--batch", "--threads", "--in-flight", "--allow-protected", "--tenant", "--config", "--quiet")) {
      assertTrue(help.outText().contains(s), "help names " + s);
    }
    assertEquals(0, run(env, "import", "--help").code());
    Result version = run(env, "--version");
    assertEquals(0, version.code());
    assertTrue(version.outText().startsWith("cairn "), version.outText());

    Result unknown = run(env, "frobnicate");
    assertEquals(2, unknown.code());
    assertTrue(unknown.err().contains("unknown command \"frobnicate\""), unknown.err());
    assertEquals(2, run(env, "--frobnicate").code());
    Result badOption = run(env, "export", "--bogus");
    assertEquals(2, badOption.code());
    assertTrue(badOption.err().contains("unknown option --bogus for export"), badOption.err());
    assertEquals(2, run(env, "export", "--since").code(), "a missing value");
    assertEquals(2, run(env, "export", "--since", "yesterday").code());
    assertEquals(2, run(env, "export", "--kinds", "1,x").code());
    assertEquals(2, run(env, "export", "--since", "10", "--until", "5").code());
    assertEquals(2, run(env, "import", "--url", "ws://127.0.0.1:1/", "--direct").code());
    assertEquals(2, run(env, "import", "--url", "http://example.com/").code());
    assertEquals(2, run(env, "import", "a.jsonl", "b.jsonl").code());
    assertEquals(2, run(env, "export", "--tenant", "Bad Name").code());
  }
}
