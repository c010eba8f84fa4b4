package dev.cairn.bench;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A tiny in-memory NIP-01 relay for testing the load clients themselves (no signature check).
 * Modes: {@code dropEveryNthOk} > 0 never answers every n-th EVENT; {@code rejectAll} answers OK false;
 * {@code dropDeliveryEveryNth} / {@code duplicateDeliveryEveryNth} skip / double every n-th live delivery;
 * {@code closeSubscribers} subscriptions are ended after {@code closeAfterDeliveries} live deliveries each,
 * by closing the connection (1008 "slow consumer") or, with {@code closeWithClosedFrame}, by a CLOSED;
 * {@code dropIdsFromQueries} leaves one event out of every REQ by ids.
 */
public final class MockRelay implements AutoCloseable {
  public int dropEveryNthOk;
  public boolean rejectAll;
  public int dropDeliveryEveryNth;
  public int duplicateDeliveryEveryNth;
  public int closeSubscribers;
  public int closeAfterDeliveries = 1;
  public boolean closeWithClosedFrame;
  public boolean dropIdsFromQueries;
  private int delivered;
  private int duplicated;
  private int closedSoFar;
  private final Vertx vertx = Vertx.vertx();
  private final HttpServer server;
  private final Map<String, JsonObject> events = new ConcurrentHashMap<>();
  private final List<Sub> subs = new CopyOnWriteArrayList<>();
  private int received;

  private static final class Sub {
    final ServerWebSocket ws;
    final String id;
    final List<JsonObject> filters;
    int live;

    Sub(ServerWebSocket ws, String id, List<JsonObject> filters) {
      this.ws = ws;
      this.id = id;
      this.filters = filters;
    }

    ServerWebSocket ws() {
      return ws;
    }

    String id() {
      return id;
    }

    List<JsonObject> filters() {
      return filters;
    }
  }

  public MockRelay() throws Exception {
    server = vertx.createHttpServer()
        .webSocketHandler(this::onSocket)
        .requestHandler(req -> req.response().end(
            "# TYPE jvm_memory_used_bytes gauge\njvm_memory_used_bytes{area=\"heap\",id=\"G1 Eden Space\"} 1000\n"))
        .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get();
  }

  public String url() {
    return "ws://127.0.0.1:" + server.actualPort();
  }

  public int stored() {
    return events.size();
  }

  private synchronized boolean drop() {
    received++;
    return dropEveryNthOk > 0 && received % dropEveryNthOk == 0;
  }

  private synchronized boolean dropDelivery() {
    delivered++;
    return dropDeliveryEveryNth > 0 && delivered % dropDeliveryEveryNth == 0;
  }

  private synchronized boolean duplicateDelivery() {
    duplicated++;
    return duplicateDeliveryEveryNth > 0 && duplicated % duplicateDeliveryEveryNth == 0;
  }

  /** After a live delivery: ends the first {@code closeSubscribers} subscriptions that reached the count. */
  private synchronized void maybeClose(Sub s) {
    if (closedSoFar >= closeSubscribers || ++s.live < closeAfterDeliveries) return;
    closedSoFar++;
    subs.remove(s);
    if (closeWithClosedFrame) {
      s.ws().writeTextMessage(new JsonArray().add("CLOSED").add(s.id()).add("error: too slow, test").encode());
    } else {
      s.ws().close((short) 1008, "slow consumer");
    }
  }

  private void onSocket(ServerWebSocket ws) {
    ws.textMessageHandler(text -> {
      JsonArray m = new JsonArray(text);
      switch (m.getString(0)) {
        case "EVENT" -> {
          JsonObject e = m.getJsonObject(1);
          String id = e.getString("id");
          if (drop()) return;
          if (rejectAll) {
            ws.writeTextMessage(new JsonArray().add("OK").add(id).add(false).add("blocked: test").encode());
            return;
          }
          boolean dup = events.putIfAbsent(id, e) != null;
          ws.writeTextMessage(new JsonArray().add("OK").add(id).add(true).add(dup ? "duplicate: have it" : "").encode());
          if (!dup) {
            for (Sub s : subs) {
              if (s.filters().stream().anyMatch(f -> matches(f, e)) && !dropDelivery()) {
                String frame = new JsonArray().add("EVENT").add(s.id()).add(e).encode();
                s.ws().writeTextMessage(frame);
                if (duplicateDelivery()) s.ws().writeTextMessage(frame);
                maybeClose(s);
              }
            }
          }
        }
        case "REQ" -> {
          String sub = m.getString(1);
          List<JsonObject> filters = new ArrayList<>();
          for (int i = 2; i < m.size(); i++) filters.add(m.getJsonObject(i));
          subs.removeIf(s -> s.ws() == ws && s.id().equals(sub));
          for (JsonObject f : filters) {
            int limit = f.getInteger("limit", 500);
            boolean dropOne = dropIdsFromQueries && f.containsKey("ids");
            events.values().stream().filter(e -> matches(f, e))
                .skip(dropOne ? 1 : 0)
                .sorted((x, y) -> Long.compare(y.getLong("created_at"), x.getLong("created_at")))
                .limit(limit)
                .forEach(e -> ws.writeTextMessage(new JsonArray().add("EVENT").add(sub).add(e).encode()));
          }
          ws.writeTextMessage(new JsonArray().add("EOSE").add(sub).encode());
          subs.add(new Sub(ws, sub, filters));
        }
        case "CLOSE" -> subs.removeIf(s -> s.ws() == ws && s.id().equals(m.getString(1)));
        default -> ws.writeTextMessage(new JsonArray().add("NOTICE").add("invalid: unknown verb").encode());
      }
    });
    ws.closeHandler(v -> subs.removeIf(s -> s.ws() == ws));
  }

  static boolean matches(JsonObject f, JsonObject e) {
    if (f.containsKey("ids") && !f.getJsonArray("ids").contains(e.getString("id"))) return false;
    if (f.containsKey("authors") && !f.getJsonArray("authors").contains(e.getString("pubkey"))) return false;
    if (f.containsKey("kinds") && !f.getJsonArray("kinds").contains(e.getInteger("kind"))) return false;
    if (f.containsKey("since") && e.getLong("created_at") < f.getLong("since")) return false;
    if (f.containsKey("until") && e.getLong("created_at") > f.getLong("until")) return false;
    for (String k : f.fieldNames()) {
      if (k.startsWith("#") && k.length() == 2) {
        JsonArray want = f.getJsonArray(k);
        boolean hit = false;
        for (Object t : e.getJsonArray("tags")) {
          JsonArray tag = (JsonArray) t;
          if (tag.size() >= 2 && tag.getString(0).equals(k.substring(1)) && want.contains(tag.getString(1))) hit = true;
        }
        if (!hit) return false;
      }
    }
    return true;
  }

  @Override
  public void close() {
    vertx.close();
  }

  /** Run standalone: {@code MockRelay [port]} (for trying the scenarios by hand). */
  public static void main(String[] args) throws Exception {
    MockRelay r = new MockRelay();
    System.out.println(r.url());
    Thread.sleep(Long.MAX_VALUE);
  }
}
