package dev.cairn.cli;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.TenantConfig;
import java.util.ArrayList;
import java.util.List;

/** Where a relay run with a config takes EVENTs: one WebSocket URL per bind, wildcard hosts as loopback. */
public final class RelayUrls {
  private RelayUrls() {}

  public static List<String> of(CairnConfig config) {
    boolean tls = config.tlsCert() != null && !config.tlsCert().isBlank();
    List<String> urls = new ArrayList<>();
    for (CairnConfig.Bind b : config.binds()) {
      String host = b.host();
      if (host == null || host.isBlank() || host.equals("0.0.0.0")) {
        host = "127.0.0.1";
      } else if (host.equals("::") || host.equals("[::]")) {
        host = "[::1]";
      } else if (host.contains(":") && !host.startsWith("[")) {
        host = "[" + host + "]";
      }
      urls.add((tls ? "wss://" : "ws://") + host + ":" + b.port());
    }
    return urls;
  }

  /** The URL of {@code tenant} under a relay's base URL: {@code /} for the default tenant, else {@code /t/<tenant>}. */
  public static String forTenant(String base, String tenant) {
    String b = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
    return TenantConfig.DEFAULT.equals(tenant) ? b + "/" : b + "/t/" + tenant;
  }
}
