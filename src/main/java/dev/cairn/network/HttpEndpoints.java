package dev.cairn.network;

import dev.cairn.admin.InfoField;
import dev.cairn.admin.RelayAdmin;
import dev.cairn.admin.TenantAdmin;
import dev.cairn.config.CairnConfig;
import dev.cairn.config.TenantConfig;
import dev.cairn.metrics.CairnMetrics;
import dev.cairn.metrics.HealthProbes;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.JsonObject;

/**
 * What a listener answers over plain HTTP, by path: health, readiness and metrics; the tenants API;
 * per tenant its NIP-11 document, status page and live figures. A tenant's change feed (SSE), NIP-86
 * calls and WebSocket upgrades are handed to those who own them. Runs on the listener's event loop.
 */
final class HttpEndpoints {
  /** A tenant's live figures, polled by its status page (below the tenant's path, like {@code /v1/events}). */
  static final String STATUS_JSON = "/status.json";

  /** Takes an upgraded WebSocket of {@code tenant}: the listener, which owns every socket. */
  interface Sockets {
    void accept(ServerWebSocket ws, String tenant, String relayUrl);
  }

  private final CairnConfig config;
  private final CairnConfig.Bind bind;
  /** Whether the listener serves TLS: its relay URL is wss://. */
  private final boolean tls;
  private final HealthProbes probes;
  private final TenantRouting routing;
  /** NIP-86: the admins' changes (NIP-11 fields). */
  private final RelayAdmin admin;
  private final StatusFigures figures;
  private final SseStreams sse;
  private final AdminApi adminApi;
  /** Issue 10: {@code /admin/tenants}, the runtime tenants of the meta DB. */
  private final TenantsApi tenantsApi;
  private final Sockets sockets;

  HttpEndpoints(CairnConfig config, CairnConfig.Bind bind, boolean tls, CairnMetrics metrics, HealthProbes probes,
      RelayAdmin admin, SseStreams sse, AdminApi adminApi, TenantsApi tenantsApi, Sockets sockets) {
    this.config = config;
    this.bind = bind;
    this.tls = tls;
    this.probes = probes;
    this.routing = new TenantRouting(config);
    this.admin = admin;
    this.figures = new StatusFigures(metrics);
    this.sse = sse;
    this.adminApi = adminApi;
    this.tenantsApi = tenantsApi;
    this.sockets = sockets;
  }

  /** Answers {@code req}: a relay-wide path, else a path of the tenant it names. */
  void serve(HttpServerRequest req) {
    String path = req.path();
    switch (path) {
      case "/healthz" -> {
        json(req, 200, new JsonObject().put("status", "ok"));
        return;
      }
      case "/readyz" -> {
        String notReady = probes.notReadyReason().get();
        if (notReady == null) {
          json(req, 200, new JsonObject().put("status", "ready"));
        } else {
          json(req, 503, new JsonObject().put("status", "not ready").put("reason", notReady));
        }
        return;
      }
      case "/metrics" -> {
        req.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")
            .end(probes.scrape().get());
        return;
      }
      default -> { }
    }
    if (TenantsApi.matches(path)) {
      tenantsApi.serve(req);
      return;
    }
    serveTenant(req, routing.resolve(path, req.authority() == null ? null : req.authority().host()));
  }

  private void serveTenant(HttpServerRequest req, TenantRouting.Target target) {
    String path = req.path();
    if (target.tenant() == null) {
      json(req, 404, new JsonObject().put("error", "unknown tenant \"" + target.tenantId() + "\""));
      return;
    }
    if (target.rest().equals("/v1/events")) {
      sse.open(req, target.tenant());
      return;
    }
    if (target.rest().equals(STATUS_JSON)) {
      cors(req).putHeader(HttpHeaders.CACHE_CONTROL, "no-store");
      json(req, 200, figures.of(target.tenant().id()));
      return;
    }
    if (!target.rest().equals("/") && !target.rest().isEmpty()) {
      json(req, 404, new JsonObject().put("error", "not found: " + path));
      return;
    }
    TenantConfig tenant = target.tenant();
    if (req.canUpgradeToWebSocket() || req.method() == HttpMethod.POST) {
      String relayUrl = routing.relayUrl(target, host(req), tls, req.getHeader("X-Forwarded-Proto"));
      if (req.method() == HttpMethod.POST) {
        adminApi.serve(req, tenant, relayUrl); // NIP-86: JSON-RPC on the relay's own URL
      } else {
        req.toWebSocket().onSuccess(ws -> sockets.accept(ws, tenant.id(), relayUrl));
      }
      return;
    }
    TenantAdmin changed = admin.of(tenant.id());
    String accept = req.getHeader(HttpHeaders.ACCEPT);
    if (req.method().name().equals("OPTIONS")) {
      cors(req).setStatusCode(204).end();
    } else if (accept != null && accept.contains("application/nostr+json")) {
      cors(req).putHeader(HttpHeaders.CONTENT_TYPE, "application/nostr+json")
          .end(Nip11Document.of(config, tenant, changed).encode());
    } else {
      String scheme = tls ? "wss://" : "ws://";
      String prefix = path.startsWith("/t/") ? "/t/" + tenant.id() : "";
      req.response().putHeader(HttpHeaders.CONTENT_TYPE, "text/html; charset=utf-8")
          .end(StatusPage.render(tenant, changed.info(InfoField.NAME, tenant.name()),
              changed.info(InfoField.DESCRIPTION, tenant.description()), scheme + host(req) + path,
              figures.of(tenant.id()), prefix + "/v1/events", prefix + STATUS_JSON));
    }
  }

  /** The host the client asked for (with its port), else the bind address. */
  private String host(HttpServerRequest req) {
    return req.authority() == null ? bind.toString() : req.authority().toString();
  }

  private static HttpServerResponse cors(HttpServerRequest req) {
    return req.response()
        .putHeader("Access-Control-Allow-Origin", "*")
        // "*" does not cover Authorization (Fetch spec): a browser admin UI needs it named for NIP-86
        .putHeader("Access-Control-Allow-Headers", "Authorization, *")
        .putHeader("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  }

  private static void json(HttpServerRequest req, int status, JsonObject body) {
    req.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(body.encode());
  }
}
