package dev.cairn.network;

import dev.cairn.config.TenantConfig;
import io.vertx.core.json.JsonObject;

/**
 * The small HTML page served at a tenant's root for browsers: live figures (its script polls
 * {@code status.json} every {@link #POLL_MILLIS} and fills the table in, no reload) and a live view of
 * the change feed (a browser {@code EventSource} on {@code /v1/events}; {@code ?since=} on the page is
 * passed on, and a tenant with SSE tokens gets a token field instead of connecting by itself).
 */
final class StatusPage {
  static final long POLL_MILLIS = 2000;

  private StatusPage() {}

  /**
   * @param name the tenant's name as NIP-11 shows it (a NIP-86 change included)
   * @param figures the first reading of {@code status.json}, so the page is complete before its first poll
   * @param statusPath where the script polls the figures
   */
  static String render(TenantConfig tenant, String name, String description, String wsUrl, JsonObject figures,
      String eventsPath, String statusPath) {
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
        <table id="figures"><tr><td>tenant</td><td><code>%s</code></td></tr>
        <tr><td>events stored per second</td><td id="events_stored_per_second">%s</td></tr>
        <tr><td>events received per second</td><td id="events_received_per_second">%s</td></tr>
        <tr><td>events stored (since start)</td><td id="events_stored_total">%s</td></tr>
        <tr><td>open connections</td><td id="connections">%s</td></tr>
        <tr><td>open subscriptions</td><td id="subscriptions">%s</td></tr>
        <tr><td>change-feed consumers (SSE)</td><td id="sse_connections">%s</td></tr>
        <tr><td>outbox backlog (rows, all tenants)</td><td id="outbox_pending">%s</td></tr>
        <tr><td>feed lag (changes in the retry buffer)</td><td id="feed_retry_buffer_depth">%s</td></tr></table>
        <p><small>Live figures from <code>%s</code>, <span id="figures-state">refreshed every %d s</span>.</small></p>
        <h2>Change feed</h2>
        <p>Server-sent events at <code>%s</code>: <span id="feed-state">connecting</span>,
        cursor <code id="feed-cursor">-</code>.</p>
        <form id="feed-token" %s><label>SSE token <input id="token" type="password" autocomplete="off"></label>
        <button>connect</button></form>
        <ul id="feed"></ul>
        <script>
        (function () {
          var statusPath = %s;
          function poll() {
            fetch(statusPath, {cache: 'no-store'}).then(function (r) { return r.json(); }).then(function (f) {
              Object.keys(f).forEach(function (k) {
                var cell = document.getElementById(k);
                if (cell && typeof f[k] !== 'object') { cell.textContent = f[k]; }
              });
              document.getElementById('figures-state').textContent = 'updated ' + new Date(f.ts).toLocaleTimeString();
            }).catch(function () {
              document.getElementById('figures-state').textContent = 'relay unreachable, retrying';
            });
          }
          setInterval(poll, %d);
        })();
        </script>
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
        """.formatted(esc(name), esc(name), esc(description), esc(wsUrl),
        esc(tenant.id()), figure(figures, "events_stored_per_second"), figure(figures, "events_received_per_second"),
        figure(figures, "events_stored_total"), figure(figures, "connections"), figure(figures, "subscriptions"),
        figure(figures, "sse_connections"), figure(figures, "outbox_pending"), figure(figures, "feed_retry_buffer_depth"),
        esc(statusPath), POLL_MILLIS / 1000, esc(eventsPath), tokens ? "" : "hidden",
        jsString(statusPath), POLL_MILLIS, jsString(eventsPath), tokens);
  }

  private static String figure(JsonObject figures, String key) {
    return esc(String.valueOf(figures.getValue(key, "-")));
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
