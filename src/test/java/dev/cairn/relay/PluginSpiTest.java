package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.config.ConfigException;
import dev.cairn.config.ConfigLoader;
import dev.cairn.nostr.EventSigner;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * In-process write policies (the {@code dev.cairn.policy.WritePolicy} SPI): found with ServiceLoader
 * (src/test/resources/META-INF/services), enabled per tenant by {@code java_policies}, asked after
 * the built-in rules and before the plugin; blocking ones run on a worker.
 */
class PluginSpiTest {
  private static final EventSigner ALICE = EventSigner.random();
  private static Path dir;
  private static TestRelay relay;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("cairn-plugins");
    Path behave = Plugins.install(dir, "behave.js");
    relay = TestRelay.start(new JsonObject().put("tenants", new JsonArray()
        .add(new JsonObject().put("id", "java").put("policy", new JsonObject()
            .put("java_policies", new JsonArray().add(ContentWritePolicy.class.getName())
                .add(BlockingWritePolicy.class.getName()))))
        .add(new JsonObject().put("id", "both").put("policy", new JsonObject()
            .put("java_policies", new JsonArray().add(ContentWritePolicy.class.getName()))
            .put("plugin", new JsonArray().add("node").add(behave.toString()))))), Map.of());
  }

  @AfterAll
  static void stop() throws Exception {
    if (relay != null) {
      relay.close();
    }
    TestRelay.deleteTree(dir);
  }

  private static JsonObject note(String content) {
    return Events.note(ALICE, content + " " + System.nanoTime(), List.of());
  }

  private static boolean stored(RelayClient c, JsonObject e) throws InterruptedException {
    return !c.query("chk" + System.nanoTime() % 100000,
        new JsonObject().put("ids", new JsonArray().add(e.getString("id")))).isEmpty();
  }

  private static void assertRefused(JsonArray ok, String message) {
    assertFalse(ok.getBoolean(2), ok.encode());
    assertEquals(message, ok.getString(3));
  }

  @Test
  void aJavaPolicyDecidesOnTheEventLoop() throws Exception {
    try (RelayClient c = relay.connect("/t/java")) {
      JsonObject refused = note("#java-reject");
      assertRefused(c.publishAndWait(refused), "blocked: java says no");
      assertFalse(stored(c, refused));
      assertEquals(Boolean.TRUE, ContentWritePolicy.onEventLoop, "a non-blocking policy is called on the event loop");
      assertEquals("java", ContentWritePolicy.last.tenant());
      assertEquals("127.0.0.1", ContentWritePolicy.last.ip());
      assertEquals("IP4", ContentWritePolicy.last.sourceType());
      assertEquals(refused, ContentWritePolicy.last.eventJson());

      assertRefused(c.publishAndWait(note("#java-restricted")), "restricted: java members only");
      assertRefused(c.publishAndWait(note("#java-throw")), "error: internal error");

      JsonObject shadow = note("#java-shadow");
      JsonArray ok = c.publishAndWait(shadow);
      assertTrue(ok.getBoolean(2));
      assertFalse(stored(c, shadow), "shadow-rejected: not stored");

      JsonObject fine = note("fine");
      assertTrue(c.publishAndWait(fine).getBoolean(2));
      assertTrue(stored(c, fine));
      assertEquals(Boolean.FALSE, BlockingWritePolicy.onEventLoop, "a blocking policy is called on a worker");
      assertTrue(Plugins.metric(relay, "cairn_policy_rejected_total", Map.of("tenant", "java", "rule", "java_policy")) >= 3);
    }
  }

  @Test
  void aBlockingPolicyDoesNotHoldOtherEvents() throws Exception {
    try (RelayClient c = relay.connect("/t/java")) {
      JsonObject slow = note("#java-slow");
      JsonObject fast = note("fast");
      c.publish(slow);
      Thread.sleep(100); // the slow one is on its worker by now
      c.publish(fast);
      JsonArray first = c.await(f -> f.getString(0).equals("OK"));
      assertEquals(fast.getString("id"), first.getString(1), "the fast event was not held behind the slow one");
      JsonArray second = c.await(f -> f.getString(0).equals("OK"));
      assertEquals(slow.getString("id"), second.getString(1));
      assertRefused(second, "rate-limited: looked it up slowly");
    }
  }

  @Test
  void javaPoliciesComeBeforeThePlugin() throws Exception {
    try (RelayClient c = relay.connect("/t/both")) {
      double asked = Plugins.metric(relay, "cairn_policy_plugin_requests_total", Map.of("tenant", "both"));
      assertRefused(c.publishAndWait(note("#java-reject #reject")), "blocked: java says no");
      assertEquals(asked, Plugins.metric(relay, "cairn_policy_plugin_requests_total", Map.of("tenant", "both")),
          "refused by the Java policy: the plugin was not asked");
      assertRefused(c.publishAndWait(note("#reject")), "blocked: no thanks");
      assertTrue(c.publishAndWait(note("both accept")).getBoolean(2));
    }
  }

  @Test
  void onlyTheListedPoliciesRunAndOnlyInTheirTenants() throws Exception {
    try (RelayClient c = relay.connect()) {
      JsonObject e = note("#java-reject in the default tenant");
      assertTrue(c.publishAndWait(e).getBoolean(2), "the default tenant lists no Java policy");
      assertTrue(stored(c, e));
    }
    assertEquals(0, RefuseAllWritePolicy.calls, "on the classpath but not listed: never asked");
  }

  @Test
  void aPolicyThatIsNotOnTheClasspathIsAConfigError() throws Exception {
    Path f = Files.createTempFile(dir, "cairn", ".json");
    Files.writeString(f, new JsonObject().put("tenants", new JsonArray().add(new JsonObject().put("id", "t")
        .put("policy", new JsonObject().put("java_policies", new JsonArray().add("com.example.Missing"))))).encode());
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(f, Map.of()));
    assertTrue(e.getMessage().startsWith("tenants[t].policy.java_policies[0]: com.example.Missing is not a WritePolicy"),
        e.getMessage());
    assertTrue(e.getMessage().contains(ContentWritePolicy.class.getName()), "lists what is there: " + e.getMessage());
  }
}
