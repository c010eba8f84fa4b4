package dev.cairn.network;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.TenantConfig;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Which tenant a request is for: {@code /t/<id>/...} by path, otherwise the tenant whose
 * {@code hosts} contains the Host name, otherwise {@code default}.
 */
final class TenantRouting {
  /** A resolved request: the tenant (null when unknown) and the path below the tenant prefix. */
  record Target(TenantConfig tenant, String tenantId, String rest) {}

  private final CairnConfig config;
  private final Map<String, TenantConfig> byHost = new HashMap<>();

  TenantRouting(CairnConfig config) {
    this.config = config;
    for (TenantConfig t : config.tenants().values()) {
      for (String h : t.hosts()) {
        byHost.put(h.toLowerCase(Locale.ROOT), t);
      }
    }
  }

  Target resolve(String path, String host) {
    if (path.startsWith("/t/")) {
      int slash = path.indexOf('/', 3);
      String id = slash < 0 ? path.substring(3) : path.substring(3, slash);
      String rest = slash < 0 ? "/" : path.substring(slash);
      return new Target(config.tenant(id), id, rest);
    }
    TenantConfig t = null;
    if (host != null) {
      String name = host.toLowerCase(Locale.ROOT);
      int colon = name.lastIndexOf(':');
      if (colon > 0 && !name.endsWith("]")) {
        name = name.substring(0, colon);
      }
      t = byHost.get(name);
    }
    if (t == null) {
      t = config.tenant(TenantConfig.DEFAULT);
    }
    return new Target(t, t.id(), path);
  }
}
