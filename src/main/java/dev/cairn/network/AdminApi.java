package dev.cairn.network;

import dev.cairn.admin.Nip86Methods;
import dev.cairn.admin.Nip98Auth;
import dev.cairn.config.TenantConfig;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.util.logging.Logger;

/**
 * NIP-86 over HTTP: a POST with {@code Content-Type: application/nostr+json+rpc} on a tenant's relay
 * URL. The body is read with a bound, the NIP-98 header checked on the event loop (cheap: parse,
 * tags, hash), then on a worker the signature is verified (CPU), the signer must be one of the
 * tenant's admins, and the method runs (it writes the meta DB). The answer is written back on the
 * listener's event loop. 401 for a missing or bad {@code Authorization}, 403 for a valid one of a
 * non-admin, 400 for a body that is no JSON object; a method's own failure is a 200 whose {@code
 * error} says why, as NIP-86's JSON-RPC style has it.
 */
final class AdminApi {
  private static final Logger LOG = Logger.getLogger(AdminApi.class.getName());
  static final String CONTENT_TYPE = "application/nostr+json+rpc";
  /** A management call is a method name and a few short params: anything bigger is not one. */
  static final int MAX_BODY = 64 * 1024;

  private final Vertx vertx;
  private final Nip86Methods methods;

  /** What to answer: an HTTP status and a NIP-86 response body. */
  private record Reply(int status, JsonObject body) {}

  AdminApi(Vertx vertx, Nip86Methods methods) {
    this.vertx = vertx;
    this.methods = methods;
  }

  static boolean isRpc(HttpServerRequest req) {
    String type = req.getHeader(HttpHeaders.CONTENT_TYPE);
    return type != null && type.trim().toLowerCase(java.util.Locale.ROOT).startsWith(CONTENT_TYPE);
  }

  /** Serves one POST to {@code tenant}'s relay URL, which the client reached at {@code relayUrl} (RelayUrl form). */
  void serve(HttpServerRequest req, TenantConfig tenant, String relayUrl) {
    if (!isRpc(req)) {
      answer(req, new Reply(415, Nip86Methods.error("a POST to the relay URL is a NIP-86 management call: send it with"
          + " Content-Type: " + CONTENT_TYPE)));
      return;
    }
    Buffer body = Buffer.buffer();
    boolean[] tooBig = {false};
    req.handler(chunk -> {
      if (tooBig[0]) {
        return;
      }
      if (body.length() + chunk.length() > MAX_BODY) {
        tooBig[0] = true;
        answer(req, new Reply(413, Nip86Methods.error("request body longer than " + MAX_BODY + " bytes")));
        return;
      }
      body.appendBuffer(chunk);
    });
    req.endHandler(v -> {
      if (!tooBig[0]) {
        call(req, tenant, relayUrl, body.getBytes());
      }
    });
  }

  private void call(HttpServerRequest req, TenantConfig tenant, String relayUrl, byte[] body) {
    Nip98Auth.Checked checked = Nip98Auth.check(req.getHeader(HttpHeaders.AUTHORIZATION), relayUrl, "POST", body,
        System.currentTimeMillis() / 1000);
    if (checked instanceof Nip98Auth.Checked.Refused r) {
      answer(req, new Reply(401, Nip86Methods.error("unauthorized: " + r.reason())));
      return;
    }
    var event = ((Nip98Auth.Checked.Passed) checked).event();
    vertx.executeBlocking(() -> {
      String bad = Nip98Auth.signatureProblem(event);
      if (bad != null) {
        return new Reply(401, Nip86Methods.error("unauthorized: " + bad));
      }
      if (!tenant.adminPubkeys().contains(event.pubkey())) {
        return new Reply(403, Nip86Methods.error("forbidden: " + event.pubkey() + " is not an admin of this relay"
            + " (relay.admin_pubkeys, tenants[].admin_pubkeys)"));
      }
      JsonObject request;
      try {
        request = new JsonObject(Buffer.buffer(body));
      } catch (DecodeException | ClassCastException e) {
        return new Reply(400, Nip86Methods.error("the body must be a JSON object {\"method\": ..., \"params\": [...]}: "
            + e.getMessage()));
      }
      JsonObject response = methods.call(tenant.id(), request);
      Object method = request.getValue("method");
      if (!response.containsKey("error") && !Nip86Methods.isReadOnly(method)) {
        // an audit line per change: who changed what, with the params (pubkeys, ids, reasons, names)
        LOG.info("NIP-86 " + method + " " + request.getValue("params", "[]") + " on tenant " + tenant.id()
            + " by " + event.pubkey());
      }
      return new Reply(200, response);
    }).onComplete(ar -> answer(req, ar.succeeded() ? ar.result()
        : new Reply(500, Nip86Methods.error("error: " + ar.cause().getMessage()))));
  }

  private static void answer(HttpServerRequest req, Reply reply) {
    if (req.response().ended()) {
      return;
    }
    var res = req.response().setStatusCode(reply.status())
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .putHeader("Access-Control-Allow-Origin", "*");
    if (reply.status() == 401) {
      res.putHeader("WWW-Authenticate", "Nostr");
    }
    res.end(reply.body().encode());
  }
}
