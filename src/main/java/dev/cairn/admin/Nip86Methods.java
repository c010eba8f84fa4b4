package dev.cairn.admin;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The NIP-86 methods of one tenant: a request {@code {"method": ..., "params": [...]}} in, a response
 * {@code {"result": ..., "error": ...}} out ({@code result} null and {@code error} set when the call
 * failed). Blocking (the changes are written to the meta DB): run it on a worker thread.
 */
public final class Nip86Methods {
  /** Every method served, as {@code supportedmethods} answers. */
  public static final List<String> SUPPORTED = List.of("supportedmethods",
      "banpubkey", "unbanpubkey", "listbannedpubkeys",
      "allowpubkey", "unallowpubkey", "listallowedpubkeys",
      "banevent", "allowevent", "listbannedevents",
      "changerelayname", "changerelaydescription", "changerelayicon");
  static final int MAX_NAME = 256;
  static final int MAX_TEXT = 8192;
  private static final Pattern HEX64 = Pattern.compile("[0-9a-f]{64}");

  private final RelayAdmin admin;

  public Nip86Methods(RelayAdmin admin) {
    this.admin = admin;
  }

  /** A bad call: its message is the response's {@code error}. */
  static final class BadCall extends Exception {
    BadCall(String message) {
      super(message, null, false, false);
    }
  }

  /** A method that changes nothing (a list, supportedmethods): not worth an audit line. */
  public static boolean isReadOnly(Object method) {
    return method instanceof String m && (m.startsWith("list") || m.equals("supportedmethods"));
  }

  public JsonObject call(String tenant, JsonObject request) {
    Object m = request.getValue("method");
    if (!(m instanceof String method)) {
      return error("\"method\" must be a string naming one of: " + String.join(", ", SUPPORTED));
    }
    Object p = request.getValue("params", new JsonArray());
    if (!(p instanceof JsonArray params)) {
      return error("\"params\" must be an array");
    }
    try {
      return ok(run(tenant, method, params));
    } catch (BadCall e) {
      return error(e.getMessage());
    }
  }

  private Object run(String tenant, String method, JsonArray params) throws BadCall {
    TenantAdmin now = admin.of(tenant);
    switch (method) {
      case "supportedmethods" -> {
        return new JsonArray(SUPPORTED.stream().filter(x -> !x.equals("supportedmethods")).map(Object.class::cast).toList());
      }
      case "banpubkey" -> {
        admin.set(tenant, AdminList.BANNED_PUBKEYS, hex(params, "pubkey"), reason(params), true);
        return true;
      }
      case "unbanpubkey" -> {
        admin.set(tenant, AdminList.BANNED_PUBKEYS, hex(params, "pubkey"), null, false);
        return true;
      }
      case "listbannedpubkeys" -> {
        return entries(now.list(AdminList.BANNED_PUBKEYS), "pubkey");
      }
      case "allowpubkey" -> {
        admin.set(tenant, AdminList.ALLOWED_PUBKEYS, hex(params, "pubkey"), reason(params), true);
        return true;
      }
      case "unallowpubkey" -> {
        admin.set(tenant, AdminList.ALLOWED_PUBKEYS, hex(params, "pubkey"), null, false);
        return true;
      }
      case "listallowedpubkeys" -> {
        return entries(now.list(AdminList.ALLOWED_PUBKEYS), "pubkey");
      }
      case "banevent" -> {
        admin.set(tenant, AdminList.BANNED_EVENTS, hex(params, "event id"), reason(params), true);
        return true;
      }
      case "allowevent" -> {
        // NIP-86's allowevent takes an event out of moderation; here that means lifting its ban
        admin.set(tenant, AdminList.BANNED_EVENTS, hex(params, "event id"), null, false);
        return true;
      }
      case "listbannedevents" -> {
        return entries(now.list(AdminList.BANNED_EVENTS), "id");
      }
      case "changerelayname" -> {
        admin.set(tenant, InfoField.NAME, text(params, "name", MAX_NAME));
        return true;
      }
      case "changerelaydescription" -> {
        admin.set(tenant, InfoField.DESCRIPTION, text(params, "description", MAX_TEXT));
        return true;
      }
      case "changerelayicon" -> {
        String icon = text(params, "icon URL", MAX_TEXT);
        String lower = icon.toLowerCase(Locale.ROOT);
        if (!lower.startsWith("https://") && !lower.startsWith("http://")) {
          throw new BadCall("changerelayicon: the icon must be an http(s) URL, got \"" + icon + "\"");
        }
        admin.set(tenant, InfoField.ICON, icon);
        return true;
      }
      default -> throw new BadCall("unknown method \"" + method + "\"; supported: " + String.join(", ", SUPPORTED));
    }
  }

  private static String hex(JsonArray params, String what) throws BadCall {
    Object v = params.isEmpty() ? null : params.getValue(0);
    String s = v instanceof String str ? str.trim().toLowerCase(Locale.ROOT) : null;
    if (s == null || !HEX64.matcher(s).matches()) {
      throw new BadCall("params[0] must be the " + what + " as 64 hex characters, got " + (v == null ? "nothing" : v));
    }
    return s;
  }

  private static String reason(JsonArray params) throws BadCall {
    Object v = params.size() > 1 ? params.getValue(1) : null;
    if (v == null) {
      return "";
    }
    if (!(v instanceof String s) || s.length() > MAX_TEXT) {
      throw new BadCall("params[1], the reason, must be a string of at most " + MAX_TEXT + " characters");
    }
    return s;
  }

  private static String text(JsonArray params, String what, int max) throws BadCall {
    Object v = params.isEmpty() ? null : params.getValue(0);
    if (!(v instanceof String s) || s.length() > max) {
      throw new BadCall("params[0] must be the " + what + " as a string of at most " + max + " characters");
    }
    return s;
  }

  private static JsonArray entries(Map<String, String> list, String key) {
    JsonArray out = new JsonArray();
    list.forEach((value, reason) -> {
      JsonObject o = new JsonObject().put(key, value);
      if (!reason.isEmpty()) {
        o.put("reason", reason);
      }
      out.add(o);
    });
    return out;
  }

  private static JsonObject ok(Object result) {
    return new JsonObject().put("result", result);
  }

  /** A failed call's response. */
  public static JsonObject error(String message) {
    return new JsonObject().putNull("result").put("error", message);
  }
}
