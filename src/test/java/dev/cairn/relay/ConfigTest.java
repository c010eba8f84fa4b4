package dev.cairn.relay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigException;
import dev.cairn.config.ConfigLoader;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ConfigLoader}: defaults, the --config file and {@code CAIRN_*} overrides (CONTRACT section 1). */
class ConfigTest {
  @TempDir
  Path dir;

  private Path file(String content) throws Exception {
    Path f = dir.resolve("cairn-" + System.nanoTime() + ".json");
    Files.writeString(f, content);
    return f;
  }

  @Test
  void defaultsWithoutFileOrEnv() {
    CairnConfig c = ConfigLoader.load(null, Map.of());
    assertEquals(5000, c.limits().maxLimit());
    assertEquals(500, c.limits().defaultLimit());
    assertEquals(131072, c.limits().maxMessageLength());
    assertEquals(900, c.limits().createdAtUpper());
    assertEquals(0, c.limits().createdAtLower());
    assertEquals(7777, c.binds().get(0).port());
    assertEquals("127.0.0.1", c.binds().get(0).host());
    assertEquals(Duration.ofSeconds(5), c.shutdownFlushBudget());
  }

  @Test
  void envOverridesApplyWithTypes() throws Exception {
    Path f = file(new JsonObject().put("limits", new JsonObject().put("max_limit", 100).put("max_filters", 3)).encode());
    CairnConfig c = ConfigLoader.load(f, Map.of(
        "CAIRN_LIMITS_MAX_LIMIT", "7",                       // int, overrides the file
        "CAIRN_LIMITS_AUTH_REQUIRED", "true",                // bool
        "CAIRN_LIMITS_SLOW_CONSUMER_TIMEOUT", "45s",         // duration
        "CAIRN_SHUTDOWN_FLUSH_BUDGET", "2m",                 // duration
        "CAIRN_HTTP_PORT", "7788",
        "CAIRN_RELAY_NAME", "From Env",                      // string
        "PATH", "/usr/bin"));                                // not ours: ignored
    assertEquals(7, c.limits().maxLimit(), "env beats the file");
    assertEquals(3, c.limits().maxFilters(), "the file beats the defaults");
    assertEquals(100, c.limits().maxSubscriptions(), "untouched keys keep their defaults");
    assertTrue(c.limits().authRequired());
    assertEquals(45_000, c.limits().slowConsumerTimeoutMillis());
    assertEquals(Duration.ofMinutes(2), c.shutdownFlushBudget());
    assertEquals(7788, c.binds().get(0).port());
    assertEquals("From Env", c.relayInfo().getString("name"));
    assertEquals(Integer.valueOf(7), c.raw().getJsonObject("limits").getInteger("max_limit"),
        "the override is stored as a number, not a string");
  }

  @Test
  void badlyTypedOverridesAreRejectedNamingTheVariable() {
    ConfigException notInt = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_LIMITS_MAX_LIMIT", "lots")));
    assertTrue(notInt.getMessage().contains("CAIRN_LIMITS_MAX_LIMIT"), notInt.getMessage());
    ConfigException notBool = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_LIMITS_AUTH_REQUIRED", "yes")));
    assertTrue(notBool.getMessage().contains("CAIRN_LIMITS_AUTH_REQUIRED"), notBool.getMessage());
    ConfigException notDuration = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_SHUTDOWN_FLUSH_BUDGET", "5 fortnights")));
    assertTrue(notDuration.getMessage().contains("shutdown.flush_budget"), notDuration.getMessage());
  }

  @Test
  void queriesPerConnectionIsAtLeastOne() {
    assertEquals(8, ConfigLoader.load(null, Map.of()).limits().queriesPerConnection());
    assertEquals(2, ConfigLoader.load(null, Map.of("CAIRN_LIMITS_QUERIES_PER_CONNECTION", "2")).limits()
        .queriesPerConnection());
    ConfigException zero = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_LIMITS_QUERIES_PER_CONNECTION", "0")));
    assertTrue(zero.getMessage().contains("limits.queries_per_connection must be at least 1"), zero.getMessage());
  }

  @Test
  void startupWarmupIsADurationOfAtMostAMinute() {
    assertEquals(java.time.Duration.ofSeconds(6), ConfigLoader.load(null, Map.of()).startupWarmup());
    assertTrue(ConfigLoader.load(null, Map.of("CAIRN_STARTUP_WARMUP", "0s")).startupWarmup().isZero());
    ConfigException tooLong = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_STARTUP_WARMUP", "2m")));
    assertTrue(tooLong.getMessage().contains("startup.warmup: at most 60s"), tooLong.getMessage());
    ConfigException notDuration = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_STARTUP_WARMUP", "warm")));
    assertTrue(notDuration.getMessage().contains("startup.warmup"), notDuration.getMessage());
  }

  @Test
  void unknownOverrideIsRejectedByName() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_FOO_BAR", "1")));
    assertTrue(e.getMessage().contains("CAIRN_FOO_BAR"), e.getMessage());
    ConfigException typo = assertThrows(ConfigException.class,
        () -> ConfigLoader.load(null, Map.of("CAIRN_LIMITS_MAX_LIMITS", "1")));
    assertTrue(typo.getMessage().contains("CAIRN_LIMITS_MAX_LIMITS"), typo.getMessage());
  }

  @Test
  void invalidJsonFileNamesThePath() throws Exception {
    Path f = file("{\"limits\": {\"max_limit\": 10,,}");
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(f, Map.of()));
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("JSON"), e.getMessage());
  }

  @Test
  void missingFileNamesThePath() {
    Path f = dir.resolve("does-not-exist.json");
    ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(f, Map.of()));
    assertTrue(e.getMessage().contains(f.toString()), e.getMessage());
  }

  @Test
  void invalidTenantIdIsRejected() throws Exception {
    for (String id : new String[] {"Acme", "-acme", "ac me", "a/b", "", "x".repeat(64)}) {
      Path f = file(new JsonObject().put("tenants", new JsonArray().add(new JsonObject().put("id", id))).encode());
      ConfigException e = assertThrows(ConfigException.class, () -> ConfigLoader.load(f, Map.of()), "id " + id);
      assertTrue(e.getMessage().contains("tenants") && e.getMessage().contains(id), e.getMessage());
    }
    Path ok = file(new JsonObject().put("tenants", new JsonArray().add(new JsonObject().put("id", "acme-2_x"))).encode());
    assertEquals("acme-2_x", ConfigLoader.load(ok, Map.of()).tenant("acme-2_x").id());
  }

  @Test
  void relayPublishesEnvLimitInNip11() throws Exception {
    try (TestRelay relay = TestRelay.start(new JsonObject(), Map.of("CAIRN_LIMITS_MAX_LIMIT", "7"))) {
      HttpResponse<String> r = TestRelay.http().send(
          HttpRequest.newBuilder(URI.create(relay.httpUrl() + "/")).header("Accept", "application/nostr+json").build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, r.statusCode());
      assertEquals(7, new JsonObject(r.body()).getJsonObject("limitation").getInteger("max_limit"));
    }
  }
}
