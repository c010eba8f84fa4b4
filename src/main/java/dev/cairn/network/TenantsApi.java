package dev.cairn.network;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.ConfigException;
import dev.cairn.config.ConfigLoader;
import dev.cairn.config.RuntimeTenantRegistry;
import dev.cairn.config.TenantConfig;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The runtime tenant API (issue 10), on every listener: {@code GET /admin/tenants} (list), {@code GET},
 * {@code PUT} (create or replace; body: a {@code tenants[]} entry, plus an optional {@code placement}) and
 * {@code DELETE /admin/tenants/<id>}. Bearer token {@code admin.token} (empty: the API is off, 404),
 * compared in constant time; only with {@code store.dialect = mysql}, where the meta DB is the registry
 * every pod polls (409 on SQLite). Changes reach every pod, this one included, through that poll, so an
 * answer means "stored in the registry", not "served everywhere yet". The registry's queries are
 * reactive; every answer is written on the listener's context (its HTTP server is in strict thread mode).
 */
final class TenantsApi {
  private static final Logger LOG = Logger.getLogger(TenantsApi.class.getName());
  static final String PATH = "/admin/tenants";
  /** A tenant's settings are a few short fields and lists: anything bigger is not one. */
  static final int MAX_BODY = 256 * 1024;

  private final CairnConfig config;
  private final Context context;
  /** SHA-256 of {@code admin.token}; null when the API is off. */
  private final byte[] tokenDigest;

  TenantsApi(CairnConfig config, Context context) {
    this.config = config;
    this.context = context;
    String token = config.raw().getJsonObject("admin", new JsonObject()).getString("token", "");
    this.tokenDigest = token.isEmpty() ? null : sha256(token);
  }

  static boolean matches(String path) {
    return path.equals(PATH) || path.startsWith(PATH + "/");
  }

  void serve(HttpServerRequest req) {
    if (tokenDigest == null) {
      answer(req, 404, error("not found: " + req.path() + " (the runtime tenant API is off: set admin.token)"));
      return;
    }
    if (!authorized(req.getHeader(HttpHeaders.AUTHORIZATION))) {
      req.response().putHeader("WWW-Authenticate", "Bearer");
      answer(req, 401, error("unauthorized: send Authorization: Bearer <admin.token>"));
      return;
    }
    if (!config.store().mysql()) {
      answer(req, 409, error("runtime tenants need store.dialect = mysql (the meta DB is the registry every pod"
          + " reads); with sqlite the tenants are the config file's tenants[]"));
      return;
    }
    RuntimeTenantRegistry registry = config.directory().registry();
    if (registry == null) {
      answer(req, 503, error("the tenant registry is not ready (database-engine is starting); retry"));
      return;
    }
    String rest = req.path().substring(PATH.length());
    String id = rest.isEmpty() || rest.equals("/") ? null : rest.substring(1);
    HttpMethod m = req.method();
    if (id == null) {
      if (m == HttpMethod.GET) {
        reply(req, registry.list().map(all -> {
          JsonArray out = new JsonArray();
          all.forEach(e -> out.add(view(e)));
          return new Reply(200, new JsonObject().put("tenants", out)
              .put("config_file_tenants", new JsonArray(List.copyOf(config.tenants().keySet()))));
        }));
      } else {
        answer(req, 405, error("use GET " + PATH + ", or GET, PUT or DELETE " + PATH + "/<id>"));
      }
      return;
    }
    if (!TenantConfig.isValidId(id)) {
      answer(req, 400, error("tenant id \"" + id + "\" must match [a-z0-9][a-z0-9_-]{0,62}"));
      return;
    }
    if (m == HttpMethod.GET) {
      reply(req, registry.get(id).map(e -> e != null ? new Reply(200, view(e))
          : new Reply(404, error(config.directory().inConfigFile(id)
              ? "tenant " + id + " comes from this pod's config file, not the registry"
              : "no runtime tenant " + id))));
    } else if (m == HttpMethod.DELETE) {
      if (TenantConfig.DEFAULT.equals(id)) {
        answer(req, 400, error("the default tenant cannot be deleted"));
        return;
      }
      if (config.directory().inConfigFile(id)) {
        answer(req, 409, error("tenant " + id + " comes from this pod's config file: remove it there"));
        return;
      }
      reply(req, registry.remove(id).map(done -> done ? new Reply(200, new JsonObject().put("id", id)
          .put("removed", true)) : new Reply(404, error("no runtime tenant " + id))));
    } else if (m == HttpMethod.PUT) {
      if (config.directory().inConfigFile(id)) {
        answer(req, 409, error("tenant " + id + " comes from this pod's config file: change it there"));
        return;
      }
      body(req, bytes -> put(req, registry, id, bytes));
    } else {
      answer(req, 405, error("use GET, PUT or DELETE " + PATH + "/<id>"));
    }
  }

  /** Validates the body as TenantConfig validates a config-file entry, then stores it. */
  private void put(HttpServerRequest req, RuntimeTenantRegistry registry, String id, byte[] bytes) {
    JsonObject body;
    try {
      Object parsed = io.vertx.core.json.Json.decodeValue(Buffer.buffer(bytes));
      if (!(parsed instanceof JsonObject o)) {
        answer(req, 400, error("the body must be a JSON object: a tenant as in the config file's tenants[]"));
        return;
      }
      body = o;
    } catch (DecodeException e) {
      answer(req, 400, error("the body is not JSON: " + e.getMessage()));
      return;
    }
    Object placement = body.remove("placement");
    if (placement != null && !"dedicated".equals(placement) && !"shared".equals(placement)) {
      answer(req, 400, error("\"placement\": must be \"dedicated\" or \"shared\", got " + placement));
      return;
    }
    try {
      TenantConfig.runtime(id, body, config.relayInfo());
    } catch (ConfigException e) {
      answer(req, 400, error(e.getMessage()));
      return;
    }
    body.remove("id"); // the path names it
    reply(req, registry.put(id, body, (String) placement)
        .map(p -> new Reply(p.created() ? 201 : 200, view(p.entry())))
        .recover(e -> e instanceof IllegalArgumentException
            ? Future.succeededFuture(new Reply(409, error(e.getMessage()))) : Future.failedFuture(e)));
  }

  private record Reply(int status, JsonObject body) {}

  private void reply(HttpServerRequest req, Future<Reply> f) {
    f.onComplete(ar -> context.runOnContext(v -> {
      if (ar.succeeded()) {
        answer(req, ar.result().status(), ar.result().body());
      } else {
        LOG.log(Level.WARNING, req.method() + " " + req.path() + " failed", ar.cause());
        answer(req, 500, error("the meta DB did not answer: " + ar.cause().getMessage()));
      }
    }));
  }

  /** A stored tenant as the API shows it: secrets (SSE tokens) masked, as in the start log. */
  private static JsonObject view(RuntimeTenantRegistry.Entry e) {
    return new JsonObject().put("id", e.id()).put("placement", e.placement()).put("updated_at", e.updatedAt())
        .put("tenant", ConfigLoader.masked(e.config()));
  }

  private void body(HttpServerRequest req, java.util.function.Consumer<byte[]> then) {
    Buffer body = Buffer.buffer();
    boolean[] tooBig = {false};
    req.handler(chunk -> {
      if (tooBig[0]) {
        return;
      }
      if (body.length() + chunk.length() > MAX_BODY) {
        tooBig[0] = true;
        answer(req, 413, error("request body longer than " + MAX_BODY + " bytes"));
        return;
      }
      body.appendBuffer(chunk);
    });
    req.endHandler(v -> {
      if (!tooBig[0]) {
        then.accept(body.getBytes());
      }
    });
  }

  /** Constant time in the token's content: digests of equal length compared with MessageDigest.isEqual. */
  private boolean authorized(String header) {
    if (header == null || header.length() < 7 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    return MessageDigest.isEqual(tokenDigest, sha256(header.substring(7).trim()));
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonObject error(String message) {
    return new JsonObject().put("error", message);
  }

  private static void answer(HttpServerRequest req, int status, JsonObject body) {
    if (req.response().ended()) {
      return;
    }
    req.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json").end(body.encode());
  }
}
