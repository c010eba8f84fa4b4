package dev.cairn.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

class RuleReloaderTest {
  @Test
  void onlyKeysOutsideThePolicyBlocksNeedARestart() {
    JsonObject a = new JsonObject()
        .put("policy", new JsonObject().put("writes_per_second", 1))
        .put("limits", new JsonObject().put("max_limit", 10).put("max_filters", 3))
        .put("tenants", new JsonArray().add(new JsonObject().put("id", "t").put("policy", new JsonObject())));
    JsonObject b = a.copy();
    b.getJsonObject("policy").put("writes_per_second", 5);
    b.getJsonArray("tenants").getJsonObject(0).put("policy", new JsonObject().put("writes_per_second", 2));
    assertEquals(List.of(), RuleReloader.differingKeys(RuleReloader.withoutPolicy(a), RuleReloader.withoutPolicy(b)));
    b.getJsonObject("limits").put("max_limit", 20);
    b.getJsonArray("tenants").getJsonObject(0).put("hosts", new JsonArray().add("x.example"));
    assertEquals(List.of("limits.max_limit", "tenants"),
        RuleReloader.differingKeys(RuleReloader.withoutPolicy(a), RuleReloader.withoutPolicy(b)));
  }
}
