package dev.cairn.network;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.TenantConfig;
import dev.cairn.nostr.RelayUrl;
import java.util.Locale;

/**
 * Which tenant a request is for: {@code /t/<id>/...} by path, otherwise the tenant whose
 * {@code hosts} contains the Host name, otherwise {@code default}. Tenants come from the live {@link
 * dev.cairn.config.TenantDirectory} (config file plus runtime tenants), read per request: a tenant created
 * at runtime is routed as soon as it is published, a removed one is unknown (404) from then on.
 */
final class TenantRouting {
  /** A resolved request: the tenant (null when unknown), the path below the tenant prefix, whether by {@code /t/<id>}. */
  record Target(TenantConfig tenant, String tenantId, String rest, boolean byPath) {}

  private final CairnConfig config;

  TenantRouting(CairnConfig config) {
    this.config = config;
  }

  Target resolve(String path, String host) {
    if (path.startsWith("/t/")) {
      int slash = path.indexOf('/', 3);
      String id = slash < 0 ? path.substring(3) : path.substring(3, slash);
      String rest = slash < 0 ? "/" : path.substring(slash);
      return new Target(config.directory().get(id), id, rest, true);
    }
    TenantConfig t = null;
    if (host != null) {
      String name = host.toLowerCase(Locale.ROOT);
      int colon = name.lastIndexOf(':');
      if (colon > 0 && !name.endsWith("]")) {
        name = name.substring(0, colon);
      }
      t = config.directory().byHost(name);
    }
    if (t == null) {
      t = config.tenant(TenantConfig.DEFAULT);
    }
    return new Target(t, t.id(), path, false);
  }

  /**
   * The URL a WebSocket client reached {@code target} at, in {@link RelayUrl} form: NIP-42's {@code
   * relay} tag must name it. The tenant's {@code public_url}, else {@code relay.public_url} (plus
   * {@code /t/<id>} for a tenant by path, or the tenant's own host for one by Host), else what the
   * request says: {@code wss} behind TLS or {@code X-Forwarded-Proto: https}, its Host and tenant path.
   * Without a configured URL the check relies on the Host header: behind a proxy, configure one.
   */
  String relayUrl(Target target, String host, boolean tls, String forwardedProto) {
    TenantConfig t = target.tenant();
    if (!t.publicUrl().isEmpty()) {
      return t.publicUrl();
    }
    String base = config.publicUrl();
    String scheme = !base.isEmpty() ? RelayUrl.scheme(base)
        : tls || "https".equalsIgnoreCase(forwardedProto) ? "wss" : "ws";
    if (target.byPath()) {
      return (base.isEmpty() ? RelayUrl.normalize(scheme + "://" + host) : base) + "/t/" + t.id();
    }
    if (!base.isEmpty() && t.id().equals(TenantConfig.DEFAULT)) {
      return base;
    }
    return RelayUrl.normalize(scheme + "://" + host);
  }

}
