package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The plugin and Java-policy keys of the policy blocks: defaults, validation, env, tenant merging. */
class PluginConfigTest {
  private static final String CONTENT_POLICY = "dev.cairn.relay.ContentWritePolicy";
  private static final String BLOCKING_POLICY = "dev.cairn.relay.BlockingWritePolicy";

  @TempDir
  Path dir;

  private CairnConfig load(JsonObject file, Map<String, String> env) throws Exception {
    Path f = Files.createTempFile(dir, "c", ".json");
    Files.writeString(f, file.encode());
    return ConfigLoader.load(f, env);
  }

  private PolicyConfig.TenantPolicy policy(JsonObject topLevelPolicy) throws Exception {
    return load(new JsonObject().put("policy", topLevelPolicy), Map.of()).policy().tenant("default");
  }

  private String error(JsonObject topLevelPolicy) {
    return assertThrows(ConfigException.class, () -> policy(topLevelPolicy)).getMessage();
  }

  @Test
  void defaultsAreOff() throws Exception {
    PolicyConfig.TenantPolicy p = policy(new JsonObject());
    assertFalse(p.plugin().enabled());
    assertEquals(Duration.ofSeconds(2), p.plugin().timeout());
    assertFalse(p.plugin().acceptOnFailure());
    assertEquals(1000, p.plugin().maxInFlight());
    assertEquals(List.of(), p.javaPolicies());
    assertEquals("off", p.plugin().toString());
  }

  @Test
  void aStringIsAShellCommandAndAListIsExecutedDirectly() throws Exception {
    PolicyConfig.Plugin s = policy(new JsonObject().put("plugin", " ./whitelist.js ")).plugin();
    assertTrue(s.enabled() && s.shell());
    assertEquals(List.of("./whitelist.js"), s.command());
    PolicyConfig.Plugin l = policy(new JsonObject().put("plugin", new JsonArray().add("node").add("p.js").add(""))
        .put("plugin_timeout", "500ms").put("plugin_timeout_action", "accept").put("plugin_max_in_flight", 7)).plugin();
    assertFalse(l.shell());
    assertEquals(List.of("node", "p.js", ""), l.command());
    assertEquals(Duration.ofMillis(500), l.timeout());
    assertTrue(l.acceptOnFailure());
    assertEquals(7, l.maxInFlight());
    assertNotEquals(policy(new JsonObject().put("plugin", "node p.js")).plugin().key(),
        policy(new JsonObject().put("plugin", new JsonArray().add("node").add("p.js"))).plugin().key(),
        "a shell command and an argument list are different processes");
    assertFalse(policy(new JsonObject().put("plugin", "  ")).plugin().enabled());
    assertFalse(policy(new JsonObject().put("plugin", new JsonArray())).plugin().enabled());
  }

  @Test
  void badValuesAreConfigErrors() {
    assertTrue(error(new JsonObject().put("plugin", 5)).startsWith("policy.plugin: must be a command"));
    assertTrue(error(new JsonObject().put("plugin", new JsonArray().add(""))).startsWith("policy.plugin[0]:"));
    assertTrue(error(new JsonObject().put("plugin", new JsonArray().add("node").add(3))).startsWith("policy.plugin[1]:"));
    assertTrue(error(new JsonObject().put("plugin_timeout", "5ms")).contains("between 10ms and 5m"));
    assertTrue(error(new JsonObject().put("plugin_timeout", "soon")).startsWith("policy.plugin_timeout: not a duration"));
    assertTrue(error(new JsonObject().put("plugin_timeout", 2)).startsWith("policy.plugin_timeout: must be a duration"));
    assertEquals("policy.plugin_timeout_action: must be \"reject\" or \"accept\", got shrug",
        error(new JsonObject().put("plugin_timeout_action", "shrug")));
    assertTrue(error(new JsonObject().put("plugin_max_in_flight", 0)).contains("between 1 and 100000"));
    assertTrue(error(new JsonObject().put("java_policies", new JsonArray().add("not a class")))
        .contains("must be a fully qualified class name"));
    assertTrue(error(new JsonObject().put("java_policies", new JsonArray().add("com.example.Nope")))
        .contains("com.example.Nope is not a WritePolicy found on the classpath"));
    assertTrue(error(new JsonObject().put("plugins", "x")).contains("unknown key \"plugins\""));
  }

  @Test
  void envOverrides() throws Exception {
    CairnConfig c = load(new JsonObject(), Map.of("CAIRN_POLICY_PLUGIN", "/opt/p.sh", "CAIRN_POLICY_PLUGIN_TIMEOUT",
        "750ms", "CAIRN_POLICY_PLUGIN_TIMEOUT_ACTION", "accept", "CAIRN_POLICY_JAVA_POLICIES", CONTENT_POLICY));
    PolicyConfig.TenantPolicy p = c.policy().tenant("default");
    assertEquals(List.of("/opt/p.sh"), p.plugin().command());
    assertEquals(Duration.ofMillis(750), p.plugin().timeout());
    assertTrue(p.plugin().acceptOnFailure());
    assertEquals(List.of(CONTENT_POLICY), p.javaPolicies());
  }

  @Test
  void pluginAndJavaPoliciesAreEachTenantsOwnTheirSettingsAreInherited() throws Exception {
    CairnConfig c = load(new JsonObject()
        .put("policy", new JsonObject().put("plugin", "/opt/operator.js").put("plugin_timeout", "3s")
            .put("java_policies", new JsonArray().add(CONTENT_POLICY)))
        .put("tenants", new JsonArray()
            .add(new JsonObject().put("id", "plain"))
            .add(new JsonObject().put("id", "own").put("policy", new JsonObject().put("plugin", "/opt/own.js")
                .put("plugin_timeout_action", "accept").put("java_policies", new JsonArray().add(BLOCKING_POLICY))))
            .add(new JsonObject().put("id", "same").put("policy", new JsonObject().put("plugin", "/opt/own.js")))
            .add(new JsonObject().put("id", "default").put("policy", new JsonObject()
                .put("java_policies", new JsonArray().add(BLOCKING_POLICY))))), Map.of());
    PolicyConfig.TenantPolicy plain = c.policy().tenant("plain");
    assertFalse(plain.plugin().enabled(), "the top-level plugin is the default tenant's, not inherited");
    assertEquals(List.of(), plain.javaPolicies());
    assertEquals(Duration.ofSeconds(3), plain.plugin().timeout(), "settings are inherited");

    PolicyConfig.TenantPolicy own = c.policy().tenant("own");
    assertEquals(List.of("/opt/own.js"), own.plugin().command());
    assertEquals(Duration.ofSeconds(3), own.plugin().timeout());
    assertTrue(own.plugin().acceptOnFailure());
    assertEquals(List.of(BLOCKING_POLICY), own.javaPolicies());
    assertEquals(own.plugin().key(), c.policy().tenant("same").plugin().key(), "the same command: one shared process");

    PolicyConfig.TenantPolicy def = c.policy().tenant("default");
    assertEquals(List.of("/opt/operator.js"), def.plugin().command());
    assertEquals(List.of(CONTENT_POLICY, BLOCKING_POLICY), def.javaPolicies(), "a default entry adds to the top-level list");
  }
}
