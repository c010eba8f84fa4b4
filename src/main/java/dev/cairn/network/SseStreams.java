package dev.cairn.network;

import dev.cairn.config.CairnConfig;
import dev.cairn.config.SseTokens;
import dev.cairn.config.TenantConfig;
import dev.cairn.delivery.DeliveryInbox;
import dev.cairn.delivery.FeedInbox;
import dev.cairn.metrics.CairnMetrics;
import dev.cairn.nostr.FeedRequest;
import dev.cairn.nostr.FeedRequestException;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.OrderedSender;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The listener's SSE responses ({@code GET /v1/events}, CONTRACT section 4): the listener owns the
 * socket, delivery owns the session. This checks the token, parses the cursor and the narrowing ({@link FeedRequest}),
 * registers the stream with delivery, and writes the chunks delivery sends. Backpressure: after a
 * chunk that asks for it, delivery is told whether the response is writable; when the write queue
 * is full it is told again once it drains, and it reads no page meanwhile. A stream that stays full
 * past {@code limits.slow_consumer_timeout} is closed (the client resumes with its cursor).
 */
final class SseStreams {
  /** One open response. */
  private static final class Stream {
    final HttpServerResponse response;
    /** The TCP connection under it, to cut a client that stopped reading (see {@link HardClose}). */
    final io.netty.channel.Channel channel;
    boolean full;
    long slowTimer = -1;

    Stream(HttpServerResponse response, io.netty.channel.Channel channel) {
      this.response = response;
      this.channel = channel;
    }
  }

  private final Vertx vertx;
  private final int listener;
  private final CairnConfig config;
  private final CairnMetrics metrics;
  /** To delivery in order; without credit the messages wait (a few per stream). */
  private final OrderedSender<DeliveryInbox> toDelivery;
  private final Map<Long, Stream> streams = new HashMap<>();
  private final ConnIds ids;

  SseStreams(Vertx vertx, int listener, ConnIds ids, CairnConfig config, CairnMetrics metrics, Channels channels) {
    this.vertx = vertx;
    this.listener = listener;
    this.ids = ids;
    this.config = config;
    this.metrics = metrics;
    BoundedChannel<DeliveryInbox> ch = channels.open("listener-" + listener + "->delivery.feed", Addresses.DELIVERY);
    ch.onReset(this::deliveryReplaced);
    this.toDelivery = new OrderedSender<>(ch);
    // ahead of any stream of this incarnation: the sessions of the listener's earlier one are dead
    up(new FeedInbox.ListenerStarted(listener, ids.first()));
  }

  /**
   * delivery was redeployed: the sessions that fed these streams are gone, so the streams end; each
   * client reconnects with its last id and the new sessions resume there (no gap, no duplicate).
   */
  private void deliveryReplaced() {
    toDelivery.clear();
    List<Stream> open = List.copyOf(streams.values());
    streams.clear();
    for (Stream s : open) {
      if (s.slowTimer >= 0) {
        vertx.cancelTimer(s.slowTimer);
      }
      s.response.end();
    }
  }

  int open() {
    return streams.size();
  }

  /** {@code GET /v1/events} for {@code tenant}: 401/403/400 or a stream. */
  void open(HttpServerRequest req, TenantConfig tenant) {
    if (!req.method().name().equals("GET")) {
      json(req, 405, "use GET");
      return;
    }
    if (!tenant.sseTokens().isEmpty()) {
      String token = token(req);
      if (token == null || token.isEmpty()) {
        json(req, 401, "a token is required: Authorization: Bearer <token> or ?token=");
        return;
      }
      // SHA-256 once, then constant-time compares with every stored digest (SseTokens): plain and
      // "sha256:" entries alike, and the 403 scan of the other tenants takes no shortcut either
      byte[] digest = SseTokens.digest(token);
      if (!tenant.sseTokens().matches(digest)) {
        boolean other = false;
        for (TenantConfig t : config.directory().all().values()) {
          other |= t.sseTokens().matches(digest);
        }
        json(req, other ? 403 : 401, other ? "this token is for another tenant" : "unknown token");
        return;
      }
    }
    FeedRequest request;
    try {
      request = FeedRequest.parse(req.getHeader("Last-Event-ID"), req.getParam("since"), req.getParam("kinds"),
          req.getParam("authors"));
    } catch (FeedRequestException e) {
      json(req, 400, e.getMessage());
      return;
    }
    long id = ids.next();
    HttpServerResponse resp = req.response();
    resp.setChunked(true)
        .putHeader(HttpHeaders.CONTENT_TYPE, "text/event-stream; charset=utf-8")
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
        .putHeader("X-Accel-Buffering", "no")
        .putHeader("Access-Control-Allow-Origin", "*");
    Stream s = new Stream(resp, HardClose.channelOf(req.connection()));
    streams.put(id, s);
    resp.closeHandler(v -> gone(id));
    resp.exceptionHandler(t -> gone(id));
    resp.write(": cairn change feed\n\n"); // sends the headers now
    up(new FeedInbox.SseOpen(id, listener, tenant.id(), request.epoch(), request.seq(), request.kinds(),
        request.authors()));
  }

  /** A chunk from delivery. */
  void write(ListenerInbox.SseWrite w) {
    Stream s = streams.get(w.streamId());
    if (s == null) {
      return; // gone: delivery was told
    }
    if (w.chunk().length > 0) {
      // wrapped, not copied: delivery built the chunk for this write alone
      s.response.write(io.vertx.core.internal.buffer.BufferInternal.buffer(io.netty.buffer.Unpooled.wrappedBuffer(w.chunk())));
    }
    if (w.end()) {
      streams.remove(w.streamId());
      s.response.end();
      return;
    }
    if (s.response.writeQueueFull()) {
      boolean newly = !s.full;
      if (newly) {
        s.full = true;
        s.response.drainHandler(v -> drained(w.streamId(), s));
        s.slowTimer = vertx.setTimer(config.limits().slowConsumerTimeoutMillis(), t -> {
          s.slowTimer = -1;
          if (s.full && streams.containsKey(w.streamId())) {
            // not reading: the connection is cut (its queued chunks freed); the client resumes with its cursor
            metrics.slowConsumerClosed("sse");
            s.response.reset();
            HardClose.now(s.channel); // reset() alone waits for the queued chunks to be written
          }
        });
      }
      if (w.ack() || newly) {
        up(new FeedInbox.SseWritable(w.streamId(), false));
      }
    } else if (w.ack()) {
      up(new FeedInbox.SseWritable(w.streamId(), true));
    }
  }

  private void drained(long id, Stream s) {
    s.full = false;
    if (s.slowTimer >= 0) {
      vertx.cancelTimer(s.slowTimer);
      s.slowTimer = -1;
    }
    if (streams.containsKey(id)) {
      up(new FeedInbox.SseWritable(id, true));
    }
  }

  private void gone(long id) {
    Stream s = streams.remove(id);
    if (s == null) {
      return;
    }
    if (s.slowTimer >= 0) {
      vertx.cancelTimer(s.slowTimer);
    }
    up(new FeedInbox.SseClosed(id));
  }

  private void up(DeliveryInbox msg) {
    toDelivery.send(msg);
  }

  private static String token(HttpServerRequest req) {
    String auth = req.getHeader(HttpHeaders.AUTHORIZATION);
    if (auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return auth.substring(7).trim();
    }
    return req.getParam("token");
  }

  private static void json(HttpServerRequest req, int status, String error) {
    req.response().setStatusCode(status).putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
        .end(new JsonObject().put("error", error).encode());
  }
}
