package dev.cairn.delivery.outbox;

import dev.cairn.store.outbox.DomainEvent;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import io.vertx.core.json.JsonArray;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code forward}: republishes every stored event to each of {@code forward.relays} over a real
 * WebSocket (one connection per upstream, reopened when it drops). Success is {@code OK true} from
 * every upstream; a {@code duplicate:} answer counts as success, which is what makes a re-run harmless
 * (Nostr ids are content hashes). Deletions need nothing: the kind 5 event is itself forwarded.
 */
final class ForwardHandler implements OutboxHandler {
  static final String NAME = "forward";
  static final long OK_TIMEOUT_MS = 10_000;

  /** One upstream: its socket (opening or open) and the events waiting for their OK. */
  private final class Upstream {
    final String url;
    Future<WebSocket> socket;
    final Map<String, List<Promise<Void>>> waiting = new HashMap<>();

    Upstream(String url) {
      this.url = url;
    }

    Future<WebSocket> socket() {
      if (socket == null || (socket.succeeded() && socket.result().isClosed()) || socket.failed()) {
        socket = client.connect(new WebSocketConnectOptions().setAbsoluteURI(url)).onSuccess(ws -> {
          ws.textMessageHandler(this::onText);
          ws.closeHandler(v -> failAll("upstream closed"));
          ws.exceptionHandler(t -> failAll(String.valueOf(t.getMessage())));
        });
      }
      return socket;
    }

    Future<Void> send(String eventId, String eventJson) {
      Promise<Void> p = Promise.promise();
      waiting.computeIfAbsent(eventId, k -> new ArrayList<>()).add(p);
      long timer = vertx.setTimer(OK_TIMEOUT_MS, t -> fail(eventId, p, "no OK from " + url + " within "
          + OK_TIMEOUT_MS + " ms"));
      socket().onSuccess(ws -> ws.writeTextMessage("[\"EVENT\"," + eventJson + "]")
              .onFailure(t -> fail(eventId, p, "send to " + url + " failed: " + t.getMessage())))
          .onFailure(t -> fail(eventId, p, "cannot connect to " + url + ": " + t.getMessage()));
      return p.future().onComplete(ar -> vertx.cancelTimer(timer));
    }

    private void onText(String text) {
      JsonArray a;
      try {
        a = new JsonArray(text);
      } catch (RuntimeException e) {
        return;
      }
      if (a.size() < 3 || !"OK".equals(a.getValue(0))) {
        return;
      }
      String id = String.valueOf(a.getValue(1));
      List<Promise<Void>> ps = waiting.remove(id);
      if (ps == null) {
        return;
      }
      boolean accepted = Boolean.TRUE.equals(a.getValue(2));
      String message = a.size() > 3 ? String.valueOf(a.getValue(3)) : "";
      for (Promise<Void> p : ps) {
        if (accepted || message.startsWith("duplicate:")) {
          p.tryComplete();
        } else {
          p.tryFail(url + " refused: " + message);
        }
      }
    }

    private void fail(String eventId, Promise<Void> p, String why) {
      List<Promise<Void>> ps = waiting.get(eventId);
      if (ps != null) {
        ps.remove(p);
        if (ps.isEmpty()) {
          waiting.remove(eventId);
        }
      }
      p.tryFail(why);
    }

    private void failAll(String why) {
      List<Promise<Void>> all = new ArrayList<>();
      waiting.values().forEach(all::addAll);
      waiting.clear();
      all.forEach(p -> p.tryFail(url + ": " + why));
    }
  }

  private final Vertx vertx;
  private final WebSocketClient client;
  private final List<Upstream> upstreams = new ArrayList<>();

  ForwardHandler(Vertx vertx, List<String> relays) {
    this.vertx = vertx;
    this.client = vertx.createWebSocketClient(new WebSocketClientOptions().setConnectTimeout(5_000)
        .setMaxMessageSize(1024 * 1024));
    for (String url : relays) {
      upstreams.add(new Upstream(url));
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Future<Void> handle(OutboxMessage m) {
    if (upstreams.isEmpty() || !DomainEvent.EVENT_STORED.equals(m.type())) {
      return Future.succeededFuture();
    }
    String id = m.payload().getString("id");
    String json = m.payload().encode();
    List<Future<Void>> sends = new ArrayList<>(upstreams.size());
    for (Upstream u : upstreams) {
      sends.add(u.send(id, json));
    }
    return Future.all(sends).mapEmpty();
  }

  void close() {
    client.close();
  }
}
