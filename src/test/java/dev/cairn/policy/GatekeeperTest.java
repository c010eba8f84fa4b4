package dev.cairn.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigLoader;
import dev.cairn.nostr.EventSigner;
import dev.cairn.nostr.NostrEvent;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rules together: their order, mute last, admission of REQs and connections, reloads. */
class GatekeeperTest {
  private static final EventSigner A = EventSigner.random();
  private static final EventSigner B = EventSigner.random();
  private static final String IP = "198.51.100.4";
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  static CairnConfig config(JsonObject file) throws Exception {
    Path f = Files.createTempFile("cairn-policy", ".json");
    try {
      Files.writeString(f, file.encode());
      return ConfigLoader.load(f, Map.of());
    } finally {
      Files.delete(f);
    }
  }

  private Gatekeeper gatekeeper(CairnConfig c) {
    return new Gatekeeper(c.limits(), c.tenants(), c.policy(), new PolicyMetrics(registry), null);
  }

  private static NostrEvent note(EventSigner s, String content) {
    return s.sign(System.currentTimeMillis() / 1000, 1, List.of(List.of("n", Long.toString(System.nanoTime()))), content);
  }

  private static Verdict judge(Gatekeeper g, String tenant, NostrEvent e, long nanos) {
    return g.judge(tenant, e, null, IP, System.currentTimeMillis(), nanos);
  }

  private double rejected(String tenant, String rule) {
    var c = registry.find("cairn_policy_rejected_total").tag("tenant", tenant).tag("rule", rule).counter();
    return c == null ? 0 : c.count();
  }

  @Test
  void runtimeTenantsGetTheRulesOfATenantWithoutAPolicyBlock() throws Exception {
    CairnConfig c = config(new JsonObject().put("policy", new JsonObject()
        .put("allow_pubkeys", new JsonArray().add(A.pubkey()))
        .put("block_words", new JsonArray().add("forbidden"))));
    Gatekeeper g = gatekeeper(c).withDirectory(c.directory());
    assertNull(g.rules("rt"), "not a tenant yet");
    c.directory().publish(Map.of("rt", dev.cairn.config.TenantConfig.runtime("rt", new JsonObject(), c.relayInfo())));
    assertNull(judge(g, "rt", note(B, "fine words"), 0), "the default tenant's allowlist is its own");
    assertEquals("blocked_word", judge(g, "rt", note(B, "a forbidden word"), 0).rule(), "operator-wide lists hold");
    assertEquals("allowlist", judge(g, "default", note(B, "fine words"), 0).rule());
    c.directory().publish(Map.of());
    assertNull(g.rules("rt"), "removed: its rules are dropped");
  }

  @Test
  void theStateOfARuntimeTenantThatIsGoneIsDroppedEvenIfNoEventAsksForIt() throws Exception {
    CairnConfig c = config(new JsonObject().put("policy", new JsonObject()
        .put("duplicate_content", new JsonObject().put("window", "1m"))));
    Gatekeeper g = gatekeeper(c).withDirectory(c.directory());
    int configured = g.tenantsWithRules();
    c.directory().publish(Map.of("rt", dev.cairn.config.TenantConfig.runtime("rt", new JsonObject(), c.relayInfo()),
        "kept", dev.cairn.config.TenantConfig.runtime("kept", new JsonObject(), c.relayInfo())));
    assertNull(judge(g, "rt", note(B, "remembered words"), 0));
    assertNull(judge(g, "kept", note(B, "remembered words"), 0));
    assertEquals(configured + 2, g.tenantsWithRules());
    c.directory().publish(Map.of("kept", c.directory().get("kept")));
    g.forgetGone();
    assertEquals(configured + 1, g.tenantsWithRules(), "the removed tenant's rules and state are gone");
    assertEquals("duplicate_content", judge(g, "kept", note(B, "remembered words"), 0).rule(),
        "a tenant still served keeps its state");
  }

  @Test
  void muteComesLastSoAMutedAuthorIsTreatedLikeAnyoneElse() throws Exception {
    Gatekeeper g = gatekeeper(config(new JsonObject().put("policy", new JsonObject()
        .put("mute_pubkeys", new JsonArray().add(A.pubkey()))
        .put("block_words", new JsonArray().add("forbidden")))));
    Verdict blocked = judge(g, "default", note(A, "a forbidden word"), 0);
    assertEquals("blocked_word", blocked.rule(), "a muted author still gets the rejections everyone gets");
    Verdict muted = judge(g, "default", note(A, "fine words"), 0);
    assertTrue(muted.muted());
    assertNull(muted.message());
    assertNull(judge(g, "default", note(B, "fine words"), 0));
    assertEquals(1, rejected("default", "mute"));
    assertEquals(1, rejected("default", "blocked_word"));
  }

  @Test
  void blockedAuthorBeatsTheAllowlistAndRateLimits() throws Exception {
    Gatekeeper g = gatekeeper(config(new JsonObject().put("policy", new JsonObject()
        .put("block_pubkeys", new JsonArray().add(A.pubkey()))
        .put("allow_pubkeys", new JsonArray().add(A.pubkey()))
        .put("rate", new JsonObject().put("events_per_ip", new JsonObject().put("per_second", 0.001).put("burst", 1))))));
    assertEquals("blocked_pubkey", judge(g, "default", note(A, "x"), 0).rule());
    assertEquals("allowlist", judge(g, "default", note(B, "x"), 0).rule());
    assertTrue(judge(g, "default", note(B, "x"), 0).message().startsWith("restricted:"));
    assertEquals(0, rejected("default", "events_per_ip"), "refused events spent no rate tokens");
  }

  @Test
  void rateLimitsAndDuplicates() throws Exception {
    Gatekeeper g = gatekeeper(config(new JsonObject().put("policy", new JsonObject()
        .put("duplicate_content", new JsonObject().put("window", "1m"))
        .put("rate", new JsonObject().put("events_per_ip", new JsonObject().put("per_second", 0.001).put("burst", 2))))));
    assertNull(judge(g, "default", note(A, "one"), 0));
    assertEquals("duplicate_content", judge(g, "default", note(A, "ONE"), 0).rule());
    Verdict limited = judge(g, "default", note(B, "three"), 0);
    assertEquals("events_per_ip", limited.rule());
    assertTrue(limited.message().startsWith("rate-limited:"), limited.message());
    assertNull(g.judge("default", note(B, "from elsewhere"), null, "198.51.100.5", System.currentTimeMillis(), 0));
  }

  @Test
  void freeWriteLimiterKeepsItsSemantics() throws Exception {
    // writes_per_second 0.5: burst 5 (10x), per pubkey
    Gatekeeper g = gatekeeper(config(new JsonObject().put("policy", new JsonObject().put("writes_per_second", 0.5))));
    for (int i = 0; i < 5; i++) {
      assertNull(judge(g, "default", note(A, "w" + i), 0));
    }
    Verdict v = judge(g, "default", note(A, "w5"), 0);
    assertEquals("writes_per_second", v.rule());
    assertEquals("rate-limited: slow down, too many events from this pubkey", v.message());
    assertNull(judge(g, "default", note(B, "w"), 0), "another pubkey has its own bucket");
    assertNull(judge(g, "default", note(A, "w6"), 2_000_000_001L), "one token back after 2 s at 0.5/s");
  }

  @Test
  void reqAdmissionRateAndQueriesInFlight() throws Exception {
    Gatekeeper g = gatekeeper(config(new JsonObject().put("policy", new JsonObject()
        .put("max_queries_in_flight", 2)
        .put("rate", new JsonObject().put("reqs_per_ip", new JsonObject().put("per_second", 0.001).put("burst", 4))))));
    assertNull(g.admitReq("default", IP, 1, 0));
    assertNull(g.admitReq("default", IP, 1, 0));
    Verdict busy = g.admitReq("default", IP, 1, 0);
    assertEquals("queries_in_flight", busy.rule());
    assertTrue(busy.message().startsWith("rate-limited:") && busy.message().contains("max 2"), busy.message());
    g.queryDone(1);
    assertNull(g.admitReq("default", IP, 1, 0), "a finished query frees a slot");
    Verdict limited = g.admitReq("default", IP, 2, 0);
    assertEquals("reqs_per_ip", limited.rule(), "4 REQs from the IP spent the burst");
    g.queriesLost();
    assertEquals(0, g.queriesInFlight(1));
  }

  @Test
  void connectionAdmission() throws Exception {
    Gatekeeper g = gatekeeper(config(new JsonObject().put("policy", new JsonObject()
        .put("rate", new JsonObject().put("connections_per_ip", new JsonObject().put("per_second", 0.001).put("burst", 1))))));
    assertNull(g.admitConnection("default", IP, 0));
    assertEquals("connections_per_ip", g.admitConnection("default", IP, 0).rule());
    assertNull(g.admitConnection("default", "2001:db8::1", 0));
    assertEquals("connections_per_ip", g.admitConnection("default", "2001:db8::2", 0).rule(), "one /64, one bucket");
  }

  @Test
  void tenantsInheritBlocksButNotTheAllowlist() throws Exception {
    EventSigner member = EventSigner.random();
    Gatekeeper g = gatekeeper(config(new JsonObject()
        .put("policy", new JsonObject()
            .put("block_pubkeys", new JsonArray().add(A.pubkey()))
            .put("allow_pubkeys", new JsonArray().add(member.pubkey()).add(A.pubkey())))
        .put("tenants", new JsonArray().add(new JsonObject().put("id", "t")
            .put("policy", new JsonObject().put("block_pubkeys", new JsonArray().add(B.pubkey())))))));
    assertEquals("blocked_pubkey", judge(g, "t", note(A, "x"), 0).rule(), "top-level block applies to tenant t");
    assertEquals("blocked_pubkey", judge(g, "t", note(B, "x"), 0).rule(), "t's own block");
    assertNull(judge(g, "t", note(EventSigner.random(), "x"), 0), "the default tenant's allowlist is not t's");
    assertEquals("allowlist", judge(g, "default", note(B, "x"), 0).rule(), "t's block is not default's; default is members-only");
    assertNull(judge(g, "default", note(member, "x"), 0));
  }

  @Test
  void restrictedWritesWithAllowedPubkeysStillWorks() throws Exception {
    Gatekeeper g = gatekeeper(config(new JsonObject()
        .put("limits", new JsonObject().put("restricted_writes", true))
        .put("tenants", new JsonArray().add(new JsonObject().put("id", "t")
            .put("allowed_pubkeys", new JsonArray().add(A.pubkey()))))));
    assertNull(judge(g, "t", note(A, "x"), 0));
    assertEquals("allowlist", judge(g, "t", note(B, "x"), 0).rule());
  }

  @Test
  void reloadSwapsRulesAndKeepsTheStateOfUnchangedOnes() throws Exception {
    JsonObject rate = new JsonObject().put("events_per_ip", new JsonObject().put("per_second", 0.001).put("burst", 2));
    Gatekeeper g = gatekeeper(config(new JsonObject().put("policy", new JsonObject().put("rate", rate))));
    assertNull(judge(g, "default", note(A, "1"), 0));
    assertNull(judge(g, "default", note(A, "2"), 0));

    List<String> changes = g.update(config(new JsonObject().put("policy", new JsonObject().put("rate", rate)
        .put("block_pubkeys", new JsonArray().add(B.pubkey())))).policy());
    assertEquals(1, changes.size(), changes.toString());
    assertTrue(changes.get(0).contains("block_pubkeys +1 -0"), changes.toString());
    assertEquals("blocked_pubkey", judge(g, "default", note(B, "3"), 0).rule());
    assertEquals("events_per_ip", judge(g, "default", note(A, "4"), 0).rule(), "the bucket survived the reload");

    assertTrue(g.update(config(new JsonObject().put("policy", new JsonObject().put("rate", rate)
        .put("block_pubkeys", new JsonArray().add(B.pubkey())))).policy()).isEmpty(), "same rules: no change");

    List<String> again = g.update(config(new JsonObject()).policy());
    assertTrue(again.get(0).contains("rate.events_per_ip"), again.toString());
    assertNull(judge(g, "default", note(B, "5"), 0));
  }

  @Test
  void validityChecksComeFirst() throws Exception {
    Gatekeeper g = gatekeeper(config(new JsonObject().put("policy", new JsonObject()
        .put("block_pubkeys", new JsonArray().add(A.pubkey())))));
    NostrEvent future = A.sign(System.currentTimeMillis() / 1000 + 3600, 1, List.of(), "later");
    assertEquals("created_at", judge(g, "default", future, 0).rule());
    NostrEvent expired = B.sign(System.currentTimeMillis() / 1000, 1, List.of(List.of("expiration", "1000")), "old");
    assertEquals("expired", judge(g, "default", expired, 0).rule());
  }
}
