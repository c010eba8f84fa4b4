package dev.cairn.network;

import dev.cairn.admin.InfoField;
import dev.cairn.admin.TenantAdmin;
import dev.cairn.config.CairnConfig;
import dev.cairn.config.TenantConfig;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** The NIP-11 relay information document of one tenant; lists only NIPs that work end to end. */
final class Nip11Document {
  static final JsonArray SUPPORTED_NIPS = new JsonArray().add(1).add(9).add(11).add(40).add(42).add(45).add(50).add(70).add(77)
      .add(86);

  private Nip11Document() {}

  /** {@code changed}: what NIP-86 admins set; their name, description and icon win over the config's. */
  static JsonObject of(CairnConfig config, TenantConfig tenant, TenantAdmin changed) {
    JsonObject relay = config.relayInfo();
    JsonObject doc = new JsonObject()
        .put("name", changed.info(InfoField.NAME, tenant.name()))
        .put("description", changed.info(InfoField.DESCRIPTION, tenant.description()))
        .put("supported_nips", SUPPORTED_NIPS.copy())
        .put("software", relay.getString("software"))
        .put("version", relay.getString("version"))
        .put("limitation", config.limits().toNip11());
    String icon = changed.info(InfoField.ICON, null);
    if (icon != null) {
      doc.put("icon", icon);
    }
    if (tenant.pubkey() != null && !tenant.pubkey().isEmpty()) {
      doc.put("pubkey", tenant.pubkey());
    }
    if (tenant.contact() != null && !tenant.contact().isEmpty()) {
      doc.put("contact", tenant.contact());
    }
    return doc;
  }
}
