package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every OK true survives a restart (CONTRACT section 3: OK true only once durable), and so does the
 * effect of replacements and deletions.
 */
class DurabilityTest {
  private static final JsonObject CONFIG = new JsonObject()
      .put("tenants", new JsonArray().add(new JsonObject().put("id", "acme")));
  private static Path dir;
  private static TestRelay restarted;

  private static final EventSigner ALICE = EventSigner.random();
  private static final List<JsonObject> OKD = new ArrayList<>();
  private static final List<JsonObject> GONE = new ArrayList<>();
  private static JsonObject profileNew;
  private static JsonObject articleNew;
  private static JsonObject articleOther;
  private static JsonObject deletedNote;
  private static JsonObject acmeNote;

  @BeforeAll
  static void publishThenRestart() throws Exception {
    dir = Files.createTempDirectory("cairn-durability");
    long now = Events.now();
    TestRelay first = TestRelay.startOn(dir, CONFIG);
    try (first; RelayClient c = first.connect(); RelayClient acme = first.connect("/t/acme")) {
      // Regular events.
      for (int i = 0; i < 5; i++) {
        ok(c, Events.signed(ALICE, 1, now - 100 + i, List.of(), "note " + i));
      }
      // Replaceable: the older version goes away.
      JsonObject profileOld = ok(c, Events.signed(ALICE, 0, now - 50, List.of(), "{\"name\":\"old\"}"));
      profileNew = ok(c, Events.signed(ALICE, 0, now - 40, List.of(), "{\"name\":\"new\"}"));
      OKD.remove(profileOld);
      GONE.add(profileOld);
      // Addressable: per d-tag.
      JsonObject articleOld = ok(c, Events.signed(ALICE, 30023, now - 50, List.of(List.of("d", "a")), "v1"));
      articleNew = ok(c, Events.signed(ALICE, 30023, now - 40, List.of(List.of("d", "a")), "v2"));
      articleOther = ok(c, Events.signed(ALICE, 30023, now - 45, List.of(List.of("d", "b")), "other"));
      OKD.remove(articleOld);
      GONE.add(articleOld);
      // NIP-09 deletion by e tag.
      deletedNote = ok(c, Events.signed(ALICE, 1, now - 30, List.of(), "to be deleted"));
      ok(c, Events.signed(ALICE, 5, now - 20, List.of(List.of("e", deletedNote.getString("id"))), "oops"));
      OKD.remove(deletedNote);
      GONE.add(deletedNote);
      // NIP-09 deletion by a tag.
      JsonObject draft = ok(c, Events.signed(ALICE, 30024, now - 30, List.of(List.of("d", "x")), "draft"));
      ok(c, Events.signed(ALICE, 5, now - 20,
          List.of(List.of("a", "30024:" + ALICE.pubkey() + ":x")), "drop the draft"));
      OKD.remove(draft);
      GONE.add(draft);
      // Another tenant's DB too.
      acmeNote = Events.signed(ALICE, 1, now - 10, List.of(), "in acme");
      assertTrue(acme.publishAndWait(acmeNote).getBoolean(2));
      // Sanity before the restart: the deletions took effect.
      assertTrue(byIds(c, GONE).isEmpty(), "replaced/deleted events are gone before the restart");
    } // closing `first` stops it; it does not own (delete) the data dir
    restarted = TestRelay.startOn(dir, CONFIG);
  }

  @AfterAll
  static void cleanUp() throws Exception {
    try {
      if (restarted != null) {
        restarted.stop();
      }
    } finally {
      TestRelay.deleteTree(dir);
      assertFalse(Files.exists(dir), "data dir removed");
    }
  }

  private static JsonObject ok(RelayClient c, JsonObject e) throws InterruptedException {
    JsonArray ok = c.publishAndWait(e);
    assertTrue(ok.getBoolean(2), "publish: " + ok.encode());
    OKD.add(e);
    return e;
  }

  private static List<JsonObject> byIds(RelayClient c, List<JsonObject> events) throws InterruptedException {
    JsonArray ids = new JsonArray();
    events.forEach(e -> ids.add(e.getString("id")));
    return c.query("ids-" + System.nanoTime(), new JsonObject().put("ids", ids).put("limit", 1000));
  }

  private static Set<String> idSet(List<JsonObject> events) {
    return events.stream().map(e -> e.getString("id")).collect(Collectors.toSet());
  }

  @Test
  void everyOkdEventSurvivesTheRestart() throws Exception {
    try (RelayClient c = restarted.connect()) {
      List<JsonObject> got = byIds(c, OKD);
      assertEquals(idSet(OKD), idSet(got));
      // Returned byte-for-byte field values.
      for (JsonObject e : got) {
        assertTrue(OKD.contains(e), "event changed across the restart: " + e.encode());
      }
    }
  }

  @Test
  void replacedAndDeletedStayGone() throws Exception {
    try (RelayClient c = restarted.connect()) {
      assertTrue(byIds(c, GONE).isEmpty(), "replaced or deleted events came back after a restart");
      List<JsonObject> profile = c.query("p", new JsonObject()
          .put("authors", new JsonArray().add(ALICE.pubkey())).put("kinds", new JsonArray().add(0)));
      assertEquals(List.of(profileNew.getString("id")), profile.stream().map(e -> e.getString("id")).toList());
      List<JsonObject> articles = c.query("a", new JsonObject()
          .put("authors", new JsonArray().add(ALICE.pubkey())).put("kinds", new JsonArray().add(30023)));
      assertEquals(Set.of(articleNew.getString("id"), articleOther.getString("id")), idSet(articles));
      List<JsonObject> drafts = c.query("d", new JsonObject()
          .put("authors", new JsonArray().add(ALICE.pubkey())).put("kinds", new JsonArray().add(30024)));
      assertTrue(drafts.isEmpty(), "a-tag deleted draft came back: " + drafts);
    }
  }

  @Test
  void deletionStillBlocksRepublishAfterRestart() throws Exception {
    try (RelayClient c = restarted.connect()) {
      JsonArray ok = c.publishAndWait(deletedNote);
      assertFalse(ok.getBoolean(2), ok.encode());
      assertTrue(ok.getString(3).startsWith("blocked:"), ok.encode());
      assertTrue(byIds(c, List.of(deletedNote)).isEmpty());
    }
  }

  @Test
  void duplicateAfterRestartIsRecognised() throws Exception {
    try (RelayClient c = restarted.connect()) {
      JsonArray ok = c.publishAndWait(OKD.get(0));
      assertTrue(ok.getBoolean(2), ok.encode());
      assertTrue(ok.getString(3).startsWith("duplicate:"), ok.encode());
    }
  }

  @Test
  void otherTenantSurvivesToo() throws Exception {
    try (RelayClient a = restarted.connect("/t/acme"); RelayClient d = restarted.connect()) {
      JsonObject f = new JsonObject().put("ids", new JsonArray().add(acmeNote.getString("id")));
      assertEquals(List.of(acmeNote), a.query("x", f));
      assertTrue(d.query("x", f).isEmpty(), "acme's event must not appear in the default tenant");
    }
  }
}
