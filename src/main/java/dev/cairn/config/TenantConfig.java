package dev.cairn.config;

import dev.cairn.nostr.RelayUrl;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One hosted relay: its own DB file, NIP-11 fields, write allowlist and SSE tokens. The tenant
 * {@code default} is served at {@code /}; others under {@code /t/<id>} and at {@code /} for their
 * {@code hosts}.
 */
public record TenantConfig(
    String id,
    String name,
    String description,
    String pubkey,
    String contact,
    List<String> hosts,
    Set<String> allowedPubkeys,
    SseTokens sseTokens,
    String publicUrl,
    Set<String> adminPubkeys) {

  public static final String DEFAULT = "default";
  private static final Pattern ID = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

  public static boolean isValidId(String id) {
    return id != null && ID.matcher(id).matches();
  }

  /** The fields a runtime tenant (PUT /admin/tenants/<id>) may have: those of a {@code tenants[]} entry but its policy. */
  public static final Set<String> RUNTIME_KEYS = Set.of("id", "name", "description", "pubkey", "contact", "hosts",
      "allowed_pubkeys", "sse", "public_url", "admin_pubkeys");

  /**
   * A runtime tenant from its registry JSON, validated as a {@code tenants[]} entry of the config file is
   * (a {@link ConfigException} says what is wrong). {@code policy} is refused: a runtime tenant gets the
   * rules a config-file tenant without a {@code policy} block gets (the top-level {@code policy.*} for
   * other tenants); per-tenant rules stay in the config file, which policy reloads from.
   */
  public static TenantConfig runtime(String id, JsonObject j, JsonObject relayDefaults) {
    if (!isValidId(id)) {
      throw new ConfigException("tenant id \"" + id + "\" must match [a-z0-9][a-z0-9_-]{0,62}");
    }
    Object given = j.getValue("id");
    if (given != null && !id.equals(given)) {
      throw new ConfigException("\"id\": " + given + " differs from the id in the path, " + id);
    }
    for (String k : j.fieldNames()) {
      if (!RUNTIME_KEYS.contains(k)) {
        throw new ConfigException("\"" + k + "\": not a field of a runtime tenant" + (k.equals("policy")
            ? " (per-tenant policy stays in the config file; a runtime tenant gets the defaults)"
            : "; known: " + new java.util.TreeSet<>(RUNTIME_KEYS)));
      }
    }
    try {
      return from(j.copy().put("id", id), relayDefaults);
    } catch (ClassCastException e) {
      throw new ConfigException("a field has the wrong type (strings, arrays of strings, sse: {\"tokens\": [...]}): "
          + e.getMessage());
    }
  }

  static TenantConfig from(JsonObject j, JsonObject relayDefaults) {
    String id = j.getString("id");
    if (!isValidId(id)) {
      throw new ConfigException("tenants[].id: \"" + id + "\" must match [a-z0-9][a-z0-9_-]{0,62}");
    }
    JsonObject sse = j.getJsonObject("sse", new JsonObject());
    return new TenantConfig(
        id,
        j.getString("name", relayDefaults.getString("name") + (id.equals(DEFAULT) ? "" : " / " + id)),
        j.getString("description", relayDefaults.getString("description")),
        j.getString("pubkey", relayDefaults.getString("pubkey")),
        j.getString("contact", relayDefaults.getString("contact")),
        strings(j.getJsonArray("hosts")),
        Set.copyOf(strings(j.getJsonArray("allowed_pubkeys"))),
        SseTokens.of(id, strings(sse.getJsonArray("tokens"))),
        publicUrl(id.equals(DEFAULT) ? "relay.public_url" : "tenants[" + id + "].public_url",
            j.getString("public_url", id.equals(DEFAULT) ? relayDefaults.getString("public_url", "") : "")),
        adminPubkeys(id, j, relayDefaults));
  }

  /**
   * Who may call the tenant's NIP-86 management API: its own {@code admin_pubkeys} and the
   * operator's {@code relay.admin_pubkeys} (the operator runs every tenant). Validated here so a
   * typo is a start error, not an admin locked out at the moment they need the API.
   */
  static Set<String> adminPubkeys(String id, JsonObject tenant, JsonObject relay) {
    Set<String> out = new java.util.LinkedHashSet<>(hexList("relay.admin_pubkeys", relay.getValue("admin_pubkeys")));
    out.addAll(hexList("tenants[" + id + "].admin_pubkeys", tenant.getValue("admin_pubkeys")));
    return Set.copyOf(out);
  }

  private static List<String> hexList(String key, Object value) {
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof JsonArray a)) {
      throw new ConfigException(key + ": must be an array of hex pubkeys, got " + value);
    }
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      String v = String.valueOf(a.getValue(i)).trim().toLowerCase(java.util.Locale.ROOT);
      if (!HEX64.matcher(v).matches()) {
        throw new ConfigException(key + "[" + i + "]: \"" + a.getValue(i) + "\" is not a pubkey (64 hex characters)");
      }
      out.add(v);
    }
    return out;
  }

  /** A configured public URL in its normal form ("" when not set); anything but ws:// or wss:// is refused. */
  static String publicUrl(String key, String url) {
    if (url == null || url.isBlank()) {
      return "";
    }
    String n = RelayUrl.normalize(url);
    if (n == null) {
      throw new ConfigException(key + ": \"" + url + "\" must be a ws:// or wss:// URL");
    }
    return n;
  }

  private static List<String> strings(JsonArray a) {
    return a == null ? List.of() : a.stream().map(String::valueOf).toList();
  }
}
