package dev.cairn.network;

import dev.cairn.config.TenantConfig;

/** The small HTML page served at a tenant's root for browsers. */
final class StatusPage {
  private StatusPage() {}

  static String render(TenantConfig tenant, String wsUrl, long connections, long subscriptions) {
    return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>%s</title>
        <style>body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
        code{background:#f3f3f3;padding:0 .3em}td{padding:.2em 1em .2em 0}</style></head>
        <body><h1>%s</h1><p>%s</p>
        <p>Nostr relay (NIP-01) at <code>%s</code>. Relay information: request this page with
        <code>Accept: application/nostr+json</code>.</p>
        <table><tr><td>tenant</td><td><code>%s</code></td></tr>
        <tr><td>open connections</td><td id="connections">%d</td></tr>
        <tr><td>open subscriptions</td><td id="subscriptions">%d</td></tr></table>
        </body></html>
        """.formatted(esc(tenant.name()), esc(tenant.name()), esc(tenant.description()), esc(wsUrl),
        esc(tenant.id()), connections, subscriptions);
  }

  private static String esc(String s) {
    if (s == null) {
      return "";
    }
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
