package dev.cairn.network;

import dev.cairn.config.TenantConfig;

/**
 * The small HTML page served at a tenant's root for browsers, with a live view of the change feed
 * (a browser {@code EventSource} on {@code /v1/events}; {@code ?since=} on the page is passed on, and
 * a tenant with SSE tokens gets a token field instead of connecting by itself).
 */
final class StatusPage {
  private StatusPage() {}

  static String render(TenantConfig tenant, String wsUrl, long connections, long subscriptions, String eventsPath) {
    boolean tokens = !tenant.sseTokens().isEmpty();
    return """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>%s</title>
        <style>body{font:15px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
        code{background:#f3f3f3;padding:0 .3em}td{padding:.2em 1em .2em 0}
        #feed{font:12px/1.4 ui-monospace,monospace;list-style:none;padding:0;max-height:24rem;overflow:auto}
        #feed li{border-bottom:1px solid #eee;padding:.2em 0;word-break:break-all}</style></head>
        <body><h1>%s</h1><p>%s</p>
        <p>Nostr relay (NIP-01) at <code>%s</code>. Relay information: request this page with
        <code>Accept: application/nostr+json</code>.</p>
        <table><tr><td>tenant</td><td><code>%s</code></td></tr>
        <tr><td>open connections</td><td id="connections">%d</td></tr>
        <tr><td>open subscriptions</td><td id="subscriptions">%d</td></tr></table>
        <h2>Change feed</h2>
        <p>Server-sent events at <code>%s</code>: <span id="feed-state">connecting</span>,
        cursor <code id="feed-cursor">-</code>.</p>
        <form id="feed-token" %s><label>SSE token <input id="token" type="password" autocomplete="off"></label>
        <button>connect</button></form>
        <ul id="feed"></ul>
        <script>
        (function () {
          var path = %s, needsToken = %s, source = null, shown = 0;
          var list = document.getElementById('feed');
          function add(type, e) {
            var li = document.createElement('li');
            li.className = 'frame-' + type;
            var d = JSON.parse(e.data);
            var what = type === 'stored' ? 'kind ' + d.event.kind + ' ' + d.event.id
                : type === 'deleted' ? d.reason + ' ' + d.id
                : type === 'reset' ? d.reason + ' (high ' + d.high_seq + ')' : 'seq ' + d.seq;
            li.textContent = (e.lastEventId || '') + ' ' + type + ' ' + what;
            li.setAttribute('data-id', type === 'stored' ? d.event.id : (d.id || ''));
            list.insertBefore(li, list.firstChild);
            if (++shown > 200) { list.removeChild(list.lastChild); }
            document.getElementById('feed-cursor').textContent = e.lastEventId || '-';
          }
          function connect(token) {
            if (source) { source.close(); }
            var q = [], since = new URLSearchParams(location.search).get('since');
            if (since) { q.push('since=' + encodeURIComponent(since)); }
            if (token) { q.push('token=' + encodeURIComponent(token)); }
            source = new EventSource(path + (q.length ? '?' + q.join('&') : ''));
            ['stored', 'deleted', 'reset', 'heartbeat'].forEach(function (t) {
              source.addEventListener(t, function (e) { add(t, e); });
            });
            source.onopen = function () { document.getElementById('feed-state').textContent = 'connected'; };
            source.onerror = function () { document.getElementById('feed-state').textContent = 'reconnecting'; };
          }
          document.getElementById('feed-token').addEventListener('submit', function (ev) {
            ev.preventDefault();
            connect(document.getElementById('token').value);
          });
          if (!needsToken) { connect(null); }
        })();
        </script>
        </body></html>
        """.formatted(esc(tenant.name()), esc(tenant.name()), esc(tenant.description()), esc(wsUrl),
        esc(tenant.id()), connections, subscriptions, esc(eventsPath), tokens ? "" : "hidden",
        jsString(eventsPath), tokens);
  }

  private static String jsString(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"").replace("<", "\\u003c") + "\"";
  }

  private static String esc(String s) {
    if (s == null) {
      return "";
    }
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
