package dev.cairn.policy;

import dev.cairn.nostr.NostrEvent;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Locale;

/**
 * strfry's write-policy plugin protocol (docs/plugins.md), one JSON object a line each way.
 *
 * <p>Request: {@code {"type":"new","event":{...},"receivedAt":<unix s>,"sourceType":"IP4"|"IP6",
 * "sourceInfo":"<ip>"}}, plus {@code "authed":"<pubkey>"} when the connection completed NIP-42 AUTH.
 * Answer: {@code {"id":"<event id>","action":"accept"|"reject"|"shadowReject","msg":"..."}}.
 */
final class PluginProtocol {
  /** The OK-message prefixes of NIP-01 (CONTRACT.md section 3). */
  private static final List<String> PREFIXES = List.of("duplicate:", "pow:", "blocked:", "rate-limited:", "invalid:",
      "restricted:", "auth-required:", "error:");

  private PluginProtocol() {}

  /** What the plugin said about one event; {@code msg} is "" when it sent none. */
  record Answer(String id, String action, String msg) {}

  /** {@code sourceType} and {@code sourceInfo}. */
  record Source(String type, String info) {}

  /** The event as a JSON object, field values exactly as received, in NIP-01's field order. */
  static JsonObject eventJson(NostrEvent e) {
    JsonArray tags = new JsonArray();
    for (List<String> tag : e.tags()) {
      JsonArray t = new JsonArray();
      tag.forEach(t::add);
      tags.add(t);
    }
    return new JsonObject()
        .put("id", e.id())
        .put("pubkey", e.pubkey())
        .put("created_at", e.createdAt())
        .put("kind", e.kind())
        .put("tags", tags)
        .put("content", e.content())
        .put("sig", e.sig());
  }

  /** IPv4 (also an IPv4-mapped IPv6 address) is {@code IP4}, anything with a colon {@code IP6}. */
  static Source source(String ip) {
    if (ip == null || ip.isEmpty()) {
      return new Source("IP4", "");
    }
    String s = ip.startsWith("[") && ip.endsWith("]") ? ip.substring(1, ip.length() - 1) : ip;
    String lower = s.toLowerCase(Locale.ROOT);
    if (lower.startsWith("::ffff:") && lower.indexOf('.') > 0) {
      return new Source("IP4", s.substring(7));
    }
    return new Source(s.indexOf(':') >= 0 ? "IP6" : "IP4", s);
  }

  /** One request line, without the newline. */
  static String request(NostrEvent e, String ip, String authedPubkey, long receivedAt) {
    Source src = source(ip);
    JsonObject r = new JsonObject()
        .put("type", "new")
        .put("event", eventJson(e))
        .put("receivedAt", receivedAt)
        .put("sourceType", src.type())
        .put("sourceInfo", src.info());
    if (authedPubkey != null && !authedPubkey.isEmpty()) {
      r.put("authed", authedPubkey);
    }
    return r.encode();
  }

  /**
   * Parses one line of the plugin's output: an answer, or an {@link IllegalArgumentException} saying
   * why the line is not one (not JSON, not an object, no string {@code id} or {@code action}).
   * The action is not checked here: a well-formed answer with an unknown action still settles its
   * request (as an error).
   */
  static Answer parse(String line) {
    JsonObject o;
    try {
      Object v = io.vertx.core.json.Json.decodeValue(line);
      if (!(v instanceof JsonObject j)) {
        throw new IllegalArgumentException("not a JSON object");
      }
      o = j;
    } catch (DecodeException e) {
      throw new IllegalArgumentException("not JSON");
    }
    if (!(o.getValue("id") instanceof String id)) {
      throw new IllegalArgumentException("no string \"id\"");
    }
    Object action = o.getValue("action");
    Object msg = o.getValue("msg");
    return new Answer(id, action instanceof String a ? a : String.valueOf(action),
        msg instanceof String m ? m : msg == null ? "" : String.valueOf(msg));
  }

  /**
   * The OK message for a rejection: the plugin's own when it starts with a NIP-01 prefix, else
   * prefixed {@code blocked: } (an empty one becomes {@code blocked: rejected by write policy}).
   * strfry passes the plugin's message through as is; Cairn's contract wants every refusal prefixed.
   */
  static String rejection(String msg) {
    String m = msg == null ? "" : msg;
    if (m.isBlank()) {
      return "blocked: rejected by write policy";
    }
    for (String p : PREFIXES) {
      if (m.startsWith(p)) {
        return m;
      }
    }
    return "blocked: " + m;
  }
}
