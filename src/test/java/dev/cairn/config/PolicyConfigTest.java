package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The policy blocks: defaults (all off), validation with clear messages, env overrides, tenant merging. */
class PolicyConfigTest {
  private static final String PK1 = "a".repeat(64);
  private static final String PK2 = "b".repeat(64);
  private static final String PK3 = "c".repeat(64);

  @TempDir
  Path dir;

  private CairnConfig load(JsonObject file) throws Exception {
    return load(file, Map.of());
  }

  private CairnConfig load(JsonObject file, Map<String, String> env) throws Exception {
    Path f = Files.createTempFile(dir, "c", ".json");
    Files.writeString(f, file.encode());
    return ConfigLoader.load(f, env);
  }

  private String error(JsonObject file) {
    return assertThrows(ConfigException.class, () -> load(file)).getMessage();
  }

  private static JsonObject policy(JsonObject p) {
    return new JsonObject().put("policy", p);
  }

  @Test
  void everythingIsOffByDefault() {
    PolicyConfig.TenantPolicy p = ConfigLoader.load(null, Map.of()).policy().tenant("default");
    assertEquals(0, p.writesPerSecond());
    assertTrue(p.blockPubkeys().isEmpty() && p.blockEventIds().isEmpty() && p.blockWords().isEmpty()
        && p.blockRegexes().isEmpty() && p.mutePubkeys().isEmpty() && p.allowPubkeys().isEmpty());
    assertFalse(p.duplicateContent().enabled());
    assertFalse(p.eventsPerIp().enabled() || p.eventsPerPubkey().enabled() || p.reqsPerIp().enabled()
        || p.connectionsPerIp().enabled());
    assertEquals(0, p.maxQueriesInFlight());
  }

  @Test
  void aFullBlockIsRead() throws Exception {
    CairnConfig c = load(policy(new JsonObject()
        .put("block_pubkeys", new JsonArray().add(PK1.toUpperCase()))
        .put("block_regexes", new JsonArray().add("(?i)casino"))
        .put("duplicate_content", new JsonObject().put("window", "10m").put("scope", "global").put("kinds", new JsonArray().add(1).add(1111)))
        .put("rate", new JsonObject().put("events_per_ip", new JsonObject().put("per_second", 2.5).put("burst", 10))
            .put("events_per_pubkey", new JsonObject().put("per_second", 1)))));
    PolicyConfig.TenantPolicy p = c.policy().tenant("default");
    assertEquals(Set.of(PK1), p.blockPubkeys(), "hex is lower-cased");
    assertEquals(List.of("(?i)casino"), p.blockRegexSources());
    assertEquals(Duration.ofMinutes(10), p.duplicateContent().window());
    assertEquals(PolicyConfig.Scope.GLOBAL, p.duplicateContent().scope());
    assertEquals(Set.of(1, 1111), p.duplicateContent().kinds());
    assertEquals(new PolicyConfig.Rate(2.5, 10), p.eventsPerIp());
    assertEquals(new PolicyConfig.Rate(1, 20), p.eventsPerPubkey(), "the default burst fills what the file leaves out");
    assertFalse(p.reqsPerIp().enabled());
  }

  @Test
  void aBrokenRegexIsAConfigErrorNamingIt() {
    String m = error(policy(new JsonObject().put("block_regexes", new JsonArray().add("ok").add("(unclosed"))));
    assertTrue(m.contains("policy.block_regexes[1]") && m.contains("(unclosed") && m.contains("regex"), m);
  }

  @Test
  void clearMessagesForBadValues() {
    assertTrue(error(policy(new JsonObject().put("block_pubkeys", new JsonArray().add("npub1xyz"))))
        .contains("policy.block_pubkeys[0]"));
    assertTrue(error(policy(new JsonObject().put("mute_pubkeys", "abc"))).contains("policy.mute_pubkeys: must be a list"));
    assertTrue(error(policy(new JsonObject().put("block_pubkey", new JsonArray()))).contains("unknown key \"block_pubkey\""));
    assertTrue(error(policy(new JsonObject().put("duplicate_content", new JsonObject().put("scope", "everyone"))))
        .contains("policy.duplicate_content.scope"));
    assertTrue(error(policy(new JsonObject().put("duplicate_content", new JsonObject().put("window", "10 minutes"))))
        .contains("policy.duplicate_content.window"));
    assertTrue(error(policy(new JsonObject().put("rate", new JsonObject().put("reqs_per_ip",
        new JsonObject().put("per_second", 1).put("burst", 0))))).contains("policy.rate.reqs_per_ip.burst"));
    assertTrue(error(policy(new JsonObject().put("rate", new JsonObject().put("events_per_ip",
        new JsonObject().put("per_second", -1))))).contains("policy.rate.events_per_ip.per_second"));
    assertTrue(error(policy(new JsonObject().put("block_words", new JsonArray().add(" ")))).contains("policy.block_words[0]"));
    assertTrue(error(policy(new JsonObject().put("max_queries_in_flight", 1.5))).contains("max_queries_in_flight"));
  }

  @Test
  void tenantBlockErrorsNameTheTenant() {
    String m = error(new JsonObject().put("tenants", new JsonArray().add(new JsonObject().put("id", "acme")
        .put("policy", new JsonObject().put("block_regexes", new JsonArray().add("[")))))); 
    assertTrue(m.contains("tenants[acme].policy.block_regexes[0]"), m);
    String unknown = error(new JsonObject().put("tenants", new JsonArray().add(new JsonObject().put("id", "acme")
        .put("policy", new JsonObject().put("mute", new JsonArray())))));
    assertTrue(unknown.contains("tenants[acme].policy") && unknown.contains("\"mute\""), unknown);
  }

  @Test
  void envOverridesReachThePolicyBlock() throws Exception {
    CairnConfig c = ConfigLoader.load(null, Map.of(
        "CAIRN_POLICY_BLOCK_PUBKEYS", PK1 + "," + PK2,
        "CAIRN_POLICY_RATE_EVENTS_PER_IP_PER_SECOND", "2.5",
        "CAIRN_POLICY_RATE_EVENTS_PER_IP_BURST", "7",
        "CAIRN_POLICY_DUPLICATE_CONTENT_WINDOW", "5m",
        "CAIRN_POLICY_DUPLICATE_CONTENT_KINDS", "1,7",
        "CAIRN_POLICY_WRITES_PER_SECOND", "0.5"));
    PolicyConfig.TenantPolicy p = c.policy().tenant("default");
    assertEquals(Set.of(PK1, PK2), p.blockPubkeys());
    assertEquals(new PolicyConfig.Rate(2.5, 7), p.eventsPerIp());
    assertEquals(Duration.ofMinutes(5), p.duplicateContent().window());
    assertEquals(Set.of(1, 7), p.duplicateContent().kinds());
    assertEquals(0.5, p.writesPerSecond());
    ConfigException typo = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_POLICY_RATE_EVENTS_PER_IPS_BURST", "7")));
    assertTrue(typo.getMessage().contains("CAIRN_POLICY_RATE_EVENTS_PER_IPS_BURST"), typo.getMessage());
    ConfigException bad = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_POLICY_BLOCK_REGEXES", "[\"(\"]")));
    assertTrue(bad.getMessage().contains("policy.block_regexes[0]"), bad.getMessage());
  }

  @Test
  void tenantBlocksExtendListsOverrideObjectsAndOwnTheAllowlist() throws Exception {
    CairnConfig c = load(new JsonObject()
        .put("policy", new JsonObject()
            .put("block_pubkeys", new JsonArray().add(PK1))
            .put("allow_pubkeys", new JsonArray().add(PK3))
            .put("writes_per_second", 2)
            .put("duplicate_content", new JsonObject().put("window", "10m").put("kinds", new JsonArray().add(1)))
            .put("rate", new JsonObject().put("events_per_ip", new JsonObject().put("per_second", 5).put("burst", 10))))
        .put("tenants", new JsonArray()
            .add(new JsonObject().put("id", "acme").put("policy", new JsonObject()
                .put("block_pubkeys", new JsonArray().add(PK2))
                .put("writes_per_second", 0)
                .put("duplicate_content", new JsonObject().put("scope", "global"))
                .put("rate", new JsonObject().put("events_per_ip", new JsonObject().put("burst", 3)))))
            .add(new JsonObject().put("id", "plain"))));
    PolicyConfig.TenantPolicy acme = c.policy().tenant("acme");
    assertEquals(Set.of(PK1, PK2), acme.blockPubkeys(), "lists extend");
    assertEquals(Set.of(), acme.allowPubkeys(), "the top-level allowlist is the default tenant's only");
    assertEquals(0, acme.writesPerSecond(), "scalars override");
    assertEquals(Duration.ofMinutes(10), acme.duplicateContent().window(), "objects merge key by key");
    assertEquals(PolicyConfig.Scope.GLOBAL, acme.duplicateContent().scope());
    assertEquals(new PolicyConfig.Rate(5, 3), acme.eventsPerIp());
    PolicyConfig.TenantPolicy plain = c.policy().tenant("plain");
    assertEquals(Set.of(PK1), plain.blockPubkeys(), "a tenant without a block inherits the top-level one");
    assertEquals(2, plain.writesPerSecond());
    assertEquals(Set.of(PK3), c.policy().tenant("default").allowPubkeys());
  }
}
