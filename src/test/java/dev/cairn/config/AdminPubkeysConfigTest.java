package dev.cairn.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** NIP-86 admins: {@code relay.admin_pubkeys} for every tenant, {@code tenants[].admin_pubkeys} for one, 64 hex each. */
class AdminPubkeysConfigTest {
  private static final String OPERATOR = "a".repeat(64);
  private static final String CLUB = "B".repeat(64);

  @Test
  void theOperatorAdministersEveryTenantAndATenantAddsItsOwn() {
    JsonObject relay = new JsonObject().put("admin_pubkeys", new JsonArray().add(OPERATOR));
    TenantConfig def = TenantConfig.from(new JsonObject().put("id", TenantConfig.DEFAULT), relay);
    TenantConfig club = TenantConfig.from(new JsonObject().put("id", "club")
        .put("admin_pubkeys", new JsonArray().add(CLUB)), relay);
    assertEquals(Set.of(OPERATOR), def.adminPubkeys());
    assertEquals(Set.of(OPERATOR, "b".repeat(64)), club.adminPubkeys(), "lower-cased");
    assertEquals(Set.of(), TenantConfig.from(new JsonObject().put("id", "x"), new JsonObject()).adminPubkeys());
  }

  @Test
  void aKeyThatIsNotHexIsAConfigError() {
    JsonObject relay = new JsonObject().put("admin_pubkeys", new JsonArray().add("npub1notahexkey"));
    ConfigException e = assertThrows(ConfigException.class,
        () -> TenantConfig.from(new JsonObject().put("id", TenantConfig.DEFAULT), relay));
    assertTrue(e.getMessage().startsWith("relay.admin_pubkeys[0]: \"npub1notahexkey\""), e.getMessage());
    ConfigException t = assertThrows(ConfigException.class, () -> TenantConfig.from(new JsonObject().put("id", "club")
        .put("admin_pubkeys", "abc"), new JsonObject()));
    assertTrue(t.getMessage().startsWith("tenants[club].admin_pubkeys"), t.getMessage());
  }
}
