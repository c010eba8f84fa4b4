package dev.cairn.network;

import dev.cairn.admin.Nip86Methods;
import dev.cairn.admin.RelayAdmin;
import dev.cairn.config.CairnConfig;
import dev.cairn.metrics.CairnMetrics;
import dev.cairn.metrics.HealthProbes;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.OrderedSender;
import dev.cairn.tree.Supervised;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.DuplexChannel;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.http.WebSocketFrame;
import io.vertx.core.internal.http.WebSocketInternal;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * One per bind address: owns the HttpServer and every accepted socket. Reads frames and sends them
 * up with their connection id, writes the frames it is handed, and hands plain HTTP requests to
 * {@link HttpEndpoints}.
 * No protocol work. When network-manager gives no credit the sockets are paused until it does.
 */
final class Listener extends Supervised {
  private static final Logger LOG = Logger.getLogger(Listener.class.getName());
  /** How often a closed connection's reading is checked. */
  static final long CLOSE_GRACE_MS = 1_000;
  /**
   * How long a closed connection may read nothing before it is cut, from the close on. Not less: "read"
   * is seen as Netty's pending bytes going down, which needs the kernel to report the socket writable,
   * i.e. a third of a send buffer of up to 4 MB (tcp_wmem) freed, more than a second for a client that
   * reads under 1 MB/s.
   */
  static final long CLOSE_STALL_MS = 3_000;
  /** Bytes one socket may write per flush turn before the others (and every other task) get theirs. */
  static final long FLUSH_TURN_BYTES = 256 * 1024;
  /**
   * The most one {@link #flushDirty} run may take; the rest of the turn goes on after the event loop's
   * next socket poll and the tasks queued meanwhile. With a thousand subscribers a whole turn writes up
   * to a thousand sockets' worth (seconds on loopback, where a write also runs the receiver's TCP
   * stack); every hop of an EVENT's way to its OK is a task on the same event loop, so each waited a
   * whole turn and a publisher's OK took 12-15 s while the relay's threads were mostly idle (decision 0022).
   */
  static final long FLUSH_SLICE_NANOS = 2_000_000;

  private final int index;
  private final CairnConfig.Bind bind;
  private final CairnConfig config;
  private final CairnMetrics metrics;
  private final Channels channels;
  private final HealthProbes probes;
  /** NIP-86: the admins' changes (NIP-11 fields) and the management API over them. */
  private final RelayAdmin admin;
  /** By connection id, unboxed: looked up once per connection per delivery. */
  private final io.netty.util.collection.LongObjectHashMap<Socket> sockets = new io.netty.util.collection.LongObjectHashMap<>();
  /**
   * Sockets paused because the relay has no room for their input: network-manager gave no credit, or
   * the {@link OutboundBudget} is full. Resumed when both have room again.
   */
  private final Set<Socket> pausedForRoom = new HashSet<>();
  private final OutboundBudget outbound;
  /**
   * Sockets with queued messages and room to write them, in the order they became dirty: served by
   * {@link #flushDirty}, a turn at a time. A socket is in it while {@code Socket.dirty} is set (an entry
   * whose flag was cleared meanwhile is skipped): no map entry or boxed id per delivery.
   */
  private final java.util.ArrayDeque<Socket> dirty = new java.util.ArrayDeque<>();
  private boolean flushScheduled;
  /** Inside {@link #flushDirty}: sockets dirtied again wait for the next slice, after the next socket poll. */
  private boolean flushing;
  /**
   * Sockets with replies queued during the delivery being handled ({@code Socket.replyDue}): written
   * and flushed once each when the delivery is done, so the OKs of one group commit leave in one
   * write per connection, not a system call each.
   */
  private final java.util.ArrayDeque<Socket> replyDue = new java.util.ArrayDeque<>();
  /** Sockets paused for writes: the clients the answer budget may close. */
  private final Set<Socket> pausedForWrites = new HashSet<>();
  private final AnswerBudget answers;
  /** A later look for a client to close over the answer budget, when none had stalled long enough yet. */
  private long shedTimer = -1;
  private final SocketFootprint footprint = new SocketFootprint();
  private OrderedSender<NetworkInbox> toManager;
  private HttpServer server;
  /** The TLS engine of this listener; null without TLS. */
  private TlsEngine tls;
  private boolean tlsChecked;
  /** Seed 003: the SSE responses this listener owns. */
  private SseStreams sse;
  private final int maxBuffered;
  private final ConnIds ids;

  /** An accepted WebSocket, its outbound queue, and why it is paused, if it is. */
  private static final class Socket {
    final long connId;
    final ServerWebSocket ws;
    final WsOutput out;
    /** Listed in {@code dirty}. */
    boolean dirty;
    /** Listed in {@code replyDue}. */
    boolean replyDue;
    boolean pausedForRoom;
    boolean pausedForWrites;
    /** When the pause for writes began (System.nanoTime). */
    long pausedForWritesAt;
    /** Network-manager was told that its client stalls ({@link NetworkInbox.Stalled}), during this pause for writes. */
    boolean toldStalled;
    /** Its input is refused (an oversized or malformed message): what it still sends is dropped. */
    boolean inputClosed;
    /** Closing: nothing more is queued for it. */
    boolean closing;
    /** Network-manager was told the connection is gone (at the close, before the TCP connection ends). */
    boolean goneSent;
    long slowTimer = -1;
    long hardCloseTimer = -1;
    /** Fragments of the message being received, and whether it is binary. */
    Buffer partial;
    boolean partialBinary;

    Socket(long connId, ServerWebSocket ws, ChannelHandlerContext ctx, Runnable retryWrite) {
      this.connId = connId;
      this.ws = ws;
      this.out = new WsOutput(ctx, retryWrite);
    }

    void cancelTimers(io.vertx.core.Vertx vertx) {
      if (slowTimer >= 0) {
        vertx.cancelTimer(slowTimer);
      }
      if (hardCloseTimer >= 0) {
        vertx.cancelTimer(hardCloseTimer);
      }
    }
  }

  Listener(int index, long incarnation, CairnConfig.Bind bind, CairnConfig config, CairnMetrics metrics,
      Channels channels, HealthProbes probes, RelayAdmin admin, CrashReporter manager) {
    super(manager);
    this.admin = admin;
    this.index = index;
    this.ids = new ConnIds(index, incarnation);
    this.outbound = new OutboundBudget(index, config.limits().maxOutboundMessages(), metrics.outboundMessagesQueued(index));
    this.answers = new AnswerBudget(config.limits().maxQueuedAnswerBytes(), metrics.outboundAnswerBytesQueued(index));
    this.bind = bind;
    this.config = config;
    this.metrics = metrics;
    this.channels = channels;
    this.probes = probes;
    this.maxBuffered = Math.max(config.limits().maxMessageLength() * 2, 65536);
  }

  @Override
  protected Future<?> startNode() {
    toManager = new OrderedSender<>(channels.open("listener->network-manager", Addresses.NETWORK_MANAGER));
    toManager.onDrained(this::resumePausedForRoom);
    sse = new SseStreams(vertx, index, ids, config, metrics, channels);
    new Inbox<>(vertx, Addresses.listener(index), ListenerInbox.class, this::handle, this::writeReplies);
    HttpServerOptions options = serverOptions();
    HttpEndpoints endpoints = new HttpEndpoints(config, bind, tls != null, metrics, probes, admin, sse,
        new AdminApi(vertx, new Nip86Methods(admin)), new TenantsApi(config, context), this::accept);
    server = vertx.createHttpServer(options).requestHandler(endpoints::serve).connectionHandler(this::connected);
    return server.listen(bind.port(), bind.host())
        .onSuccess(s -> LOG.info(tls == null ? "listening on " + bind.host() + ":" + s.actualPort()
            : "TLS on " + bind.host() + ":" + s.actualPort() + " with " + tls.description()));
  }

  /** The port it listens on (the one the system chose for a bind to port 0); after it started. */
  int port() {
    return server.actualPort();
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }

  private HttpServerOptions serverOptions() {
    int max = config.limits().maxMessageLength();
    HttpServerOptions o = new HttpServerOptions()
        // Room above the limit so an over-long message still reaches the conn-worker, which answers
        // it with a NOTICE and a 1009 close; beyond 4x the transport drops it outright.
        .setMaxWebSocketMessageSize(Math.max(max * 4, 65536))
        .setMaxWebSocketFrameSize(Math.max(max * 4, 65536))
        // permessage-deflate costs ~0.1 ms of CPU per frame: off unless the operator wants it
        .setPerMessageWebSocketCompressionSupported(config.raw().getJsonObject("http").getBoolean("ws_compression", false))
        .setPerFrameWebSocketCompressionSupported(false)
        // HTTP/1.1 only: WebSocket and SSE need it, and no client of ours benefits from an h2c upgrade
        .setHttp2ClearTextEnabled(false)
        // how long a client that reads may take to reach our close frame and answer it; one that reads
        // nothing is cut long before (closeGrace)
        .setWebSocketClosingTimeout((int) Math.max(1, config.limits().slowConsumerTimeoutMillis() / 1000))
        // every response and socket of this server is written on the listener's event loop: no
        // multi-producer queue per connection (a few KB of heap each, thousands of connections)
        .setStrictThreadMode(true)
        .setTcpNoDelay(true);
    if (!config.tlsCert().isEmpty()) {
      // OpenSSL (BoringSSL via netty-tcnative) or the JDK's engine, per tls.engine: see TlsEngine
      tls = TlsEngine.choose(config.tlsEngine());
      o.setSsl(true).setKeyCertOptions(new PemKeyCertOptions().setCertPath(config.tlsCert()).setKeyPath(config.tlsKey()))
          .setSslEngineOptions(tls.options());
      if (!config.headerTimeout().isZero()) {
        // a client that stalls its handshake is cut as soon as one that stalls its request head
        o.setSslHandshakeTimeout(config.headerTimeout().toMillis()).setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS);
      }
    }
    return o;
  }

  /**
   * A new HTTP connection (after its TLS handshake): its request head is due within
   * {@code http.header_timeout} (see {@link HeaderTimeout}); the first TLS connection also confirms
   * that the handshake used the engine the start log announced.
   */
  private void connected(HttpConnection conn) {
    ChannelPipeline pipeline = conn instanceof ConnectionBase c ? c.channelHandlerContext().pipeline() : null;
    HeaderTimeout.install(pipeline, config.headerTimeout().toMillis());
    if (tls != null && !tlsChecked) {
      tlsChecked = true;
      String used = TlsEngine.used(pipeline);
      String expected = tls.openSsl() ? TlsEngine.OPENSSL : TlsEngine.JDK;
      String at = bind.host() + ":" + server.actualPort();
      if (expected.equals(used)) {
        LOG.fine("TLS on " + at + ": the first handshake used " + used);
      } else {
        LOG.warning("TLS on " + at + ": announced " + expected + ", but the first handshake used " + used);
      }
    }
  }

  private void accept(ServerWebSocket ws, String tenant, String relayUrl) {
    long connId = ids.next();
    boolean direct = footprint.apply(ws);
    ChannelHandlerContext ctx = ((WebSocketInternal) ws).channelHandlerContext();
    Socket s = new Socket(connId, ws, ctx, () -> {
      Socket again = sockets.get(connId);
      if (again != null && !again.closing) {
        write(connId, again, FLUSH_TURN_BYTES);
      }
    });
    sockets.put(connId, s);
    // Told when the socket drains: with direct writes Vert.x calls the drain handler on every
    // writability change; otherwise a small pipeline handler of our own does (on this event loop).
    if (direct) {
      ws.drainHandler(v -> drain(connId, s));
    } else {
      ctx.pipeline().addBefore(ctx.name(), "cairn-drain", new ChannelInboundHandlerAdapter() {
        @Override
        public void channelWritabilityChanged(ChannelHandlerContext c) {
          if (c.channel().isWritable()) {
            drain(connId, s);
          }
          c.fireChannelWritabilityChanged();
        }
      });
    }
    String remote = String.valueOf(ws.remoteAddress());
    up(s, new NetworkInbox.Opened(connId, tenant, index, remote, relayUrl));
    ws.frameHandler(frame -> frame(connId, s, frame));
    ws.exceptionHandler(t -> LOG.fine("connection " + remote + ": " + t));
    ws.closeHandler(v -> {
      Socket gone = sockets.remove(connId);
      if (gone != null) {
        gone.cancelTimers(vertx);
        discard(gone);
        pausedForRoom.remove(gone);
        pausedForWrites.remove(gone);
        gone(gone);
      }
    });
  }

  /**
   * Reassembles a message from its frames and checks it is UTF-8 text (RFC 6455: otherwise fail the
   * connection with 1007). An oversized message is cut off here, before it is buffered: the client
   * is told and the connection closed at once; whatever it still sends is ignored (the socket keeps
   * being read, so the close handshake completes).
   */
  private void frame(long connId, Socket s, WebSocketFrame frame) {
    if (s.inputClosed || (!frame.isText() && !frame.isBinary() && !frame.isContinuation())) {
      return; // closing, or ping, pong and close, which are the transport's
    }
    if (!frame.isContinuation()) {
      s.partial = null;
      s.partialBinary = frame.isBinary();
    }
    Buffer data = frame.binaryData();
    if (s.partial == null) {
      s.partial = frame.isFinal() ? data : data.copy();
    } else {
      s.partial.appendBuffer(data);
    }
    if (s.partial.length() > maxBuffered) {
      s.partial = null;
      s.inputClosed = true;
      up(s, new NetworkInbox.BadFrame(connId,
          "invalid: message is longer than " + config.limits().maxMessageLength() + " bytes", (short) 1009));
      return;
    }
    if (!frame.isFinal()) {
      return;
    }
    byte[] bytes = s.partial.getBytes();
    s.partial = null;
    if (s.partialBinary) {
      up(s, new NetworkInbox.BadFrame(connId, "invalid: binary frames are not supported, send JSON text frames", (short) 0));
      return;
    }
    if (!Utf8.isValid(bytes)) {
      s.inputClosed = true;
      up(s, new NetworkInbox.BadFrame(connId, "invalid: message is not valid UTF-8", (short) 1007));
      return;
    }
    up(s, new NetworkInbox.Frame(connId, bytes));
  }

  /** Sends up in arrival order; without room for more, pauses the socket that fed the message. */
  private void up(Socket from, NetworkInbox msg) {
    toManager.send(msg);
    if ((toManager.backlogged() || outbound.full()) && from != null && !from.pausedForRoom) {
      from.pausedForRoom = true;
      pausedForRoom.add(from);
      from.ws.pause();
    }
  }

  private void resumePausedForRoom() {
    if (outbound.full() || toManager.backlogged()) {
      return; // the other one resumes them
    }
    for (Socket s : pausedForRoom) {
      s.pausedForRoom = false;
      if (!s.pausedForWrites) {
        s.ws.resume();
      }
    }
    pausedForRoom.clear();
  }

  private void handle(ListenerInbox msg) {
    if (msg instanceof ListenerInbox.Deliver d) {
      byte[] event = d.event();
      long[] conns = d.connIds();
      byte[][] heads = d.heads();
      // Fan-out only queues here; the sockets are written a turn at a time (flushDirty), so replies
      // to other clients (OKs) and reads are never stuck behind a burst of deliveries.
      int added = 0;
      for (int i = 0; i < conns.length; i++) {
        Socket s = sockets.get(conns[i]);
        if (s != null && !s.closing) {
          s.out.add(heads[i], event, false);
          added++;
          if (i + 1 == conns.length || conns[i + 1] != conns[i]) {
            queued(conns[i], s, false);
          }
        }
      }
      outbound.added(added);
    } else if (msg instanceof ListenerInbox.Write w) {
      Socket s = sockets.get(w.connId());
      if (s == null || s.closing) {
        return;
      }
      long own = s.out.ownBytes();
      for (int i = 0; i < w.heads().length; i++) {
        s.out.add(w.heads()[i], w.events()[i], true);
      }
      answers.changed(s.out.ownBytes() - own);
      outbound.added(w.heads().length);
      queued(w.connId(), s, true);
      if (answers.over()) {
        closeStalledOverAnswerBudget();
      }
    } else if (msg instanceof ListenerInbox.SseWrite w) {
      sse.write(w);
    } else if (msg instanceof ListenerInbox.Close c) {
      Socket s = sockets.get(c.connId());
      if (s != null) {
        if (s.replyDue) { // what was said before the close goes first (close discards what waits)
          s.replyDue = false;
          write(s.connId, s, FLUSH_TURN_BYTES);
        }
        close(s, c.code(), c.reason());
      }
    }
  }

  /**
   * After queueing for {@code s}: bound what waits, then write it — a {@code reply} to this client
   * once the delivery is handled, fan-out on the next flush turn.
   */
  private void queued(long connId, Socket s, boolean reply) {
    if (s.out.queuedBytes() > config.limits().maxOutboundBytes()) {
      slowConsumer(s, "slow consumer: more than " + config.limits().maxOutboundBytes()
          + " bytes waiting to be read");
      return;
    }
    if (reply) {
      if (!s.replyDue) {
        s.replyDue = true;
        replyDue.add(s);
      }
      return;
    }
    markDirty(s);
  }

  /** After each delivery: the replies it queued, one write and flush per socket. */
  private void writeReplies() {
    for (Socket s; (s = replyDue.poll()) != null; ) {
      if (s.replyDue) {
        s.replyDue = false;
        if (!s.closing && sockets.get(s.connId) == s) {
          write(s.connId, s, FLUSH_TURN_BYTES);
          if (s.pausedForWrites && !s.toldStalled && !s.closing) {
            // Answers still come for a client that does not read: its queries wait until it does. Said
            // only for replies, so the fan-out's subscribers pausing and resuming cost network-manager nothing.
            s.toldStalled = true;
            toManager.send(new NetworkInbox.Stalled(s.connId, true));
          }
        }
      }
    }
  }

  private void markDirty(Socket s) {
    if (!s.dirty) {
      s.dirty = true;
      dirty.add(s);
    }
    if (!flushScheduled && !flushing) {
      flushScheduled = true;
      context.runOnContext(v -> flushDirty());
    }
  }

  /** Writes up to {@code budget} bytes for {@code s}; keeps it dirty when more waits and it is writable. */
  private void write(long connId, Socket s, long budget) {
    int before = s.out.queued();
    long own = s.out.ownBytes();
    boolean all = s.out.drain(budget);
    answers.changed(s.out.ownBytes() - own);
    if (outbound.removed(before - s.out.queued())) {
      resumePausedForRoom();
    }
    if (all) {
      s.dirty = false;
      return;
    }
    if (s.out.writable()) {
      markDirty(s);
    } else {
      s.dirty = false;
      if (!s.pausedForWrites) {
        slowReader(connId, s);
      }
    }
  }

  /**
   * One flush turn, or its next slice: each dirty socket gets up to {@link #FLUSH_TURN_BYTES}, in the
   * order they became dirty, for at most {@link #FLUSH_SLICE_NANOS}; the sockets left wait at the head
   * of the queue for the next slice, after the tasks queued meanwhile (replies, the ingest path).
   */
  private void flushDirty() {
    flushScheduled = false;
    flushing = true;
    long deadline = System.nanoTime() + FLUSH_SLICE_NANOS;
    try {
      for (int n = dirty.size(); n > 0; n--) { // this turn: the sockets dirty now; re-dirtied ones go next turn
        Socket s = dirty.poll();
        if (!s.dirty) {
          continue; // written out meanwhile, or stopped
        }
        s.dirty = false;
        if (!s.closing && sockets.get(s.connId) == s) {
          write(s.connId, s, FLUSH_TURN_BYTES);
          if (n > 1 && System.nanoTime() - deadline >= 0) {
            break;
          }
        }
      }
    } finally {
      flushing = false;
    }
    if (!dirty.isEmpty() && !flushScheduled) {
      flushScheduled = true;
      afterSocketReads(this::flushDirty);
    }
  }

  /**
   * Runs {@code action} on this listener's context once the event loop has next polled its sockets.
   * Netty runs queued tasks for up to a second before it polls again (its task quantum), so a flush
   * that queued its own continuation kept the publishers' EVENTs unread for that long under fan-out
   * overload; a task scheduled with no delay is only taken up after the next poll.
   */
  private void afterSocketReads(Runnable action) {
    ((io.vertx.core.internal.ContextInternal) context).nettyEventLoop()
        .schedule(() -> context.runOnContext(v -> action.run()), 0, java.util.concurrent.TimeUnit.NANOSECONDS);
  }

  /**
   * The socket is writable again: it is not stuck (its slow-consumer timer stops and it may send
   * again), and what waits for it is written on in the next flush slice. Not here: Netty reports the
   * sockets that became writable together, and a thousand subscribers each taking a turn's bytes in
   * one go held the event loop for seconds.
   */
  private void drain(long connId, Socket s) {
    if (s.closing) {
      return;
    }
    if (s.pausedForWrites) {
      s.pausedForWrites = false;
      pausedForWrites.remove(s);
      if (s.toldStalled) {
        s.toldStalled = false;
        toManager.send(new NetworkInbox.Stalled(connId, false));
      }
      if (s.slowTimer >= 0) {
        vertx.cancelTimer(s.slowTimer);
        s.slowTimer = -1;
      }
      if (!s.pausedForRoom) {
        s.ws.resume();
      }
    }
    if (!s.out.idle()) {
      markDirty(s);
    }
  }

  /**
   * The client does not read what we write: stop reading from it (no new work for it) until its
   * queue drains, and close it if it stays unwritable past {@code limits.slow_consumer_timeout}.
   */
  private void slowReader(long connId, Socket s) {
    s.pausedForWrites = true;
    s.pausedForWritesAt = System.nanoTime();
    pausedForWrites.add(s);
    s.ws.pause();
    s.slowTimer = vertx.setTimer(config.limits().slowConsumerTimeoutMillis(), id -> {
      s.slowTimer = -1;
      if (sockets.get(connId) == s && s.pausedForWrites) {
        slowConsumer(s, "slow consumer: not reading for " + config.limits().slowConsumerTimeoutMillis() / 1000 + " s");
      }
    });
  }

  /** Tells network-manager, once, that the connection is over (closing, or closed by the client). */
  private void gone(Socket s) {
    if (!s.goneSent) {
      s.goneSent = true;
      up(null, new NetworkInbox.Gone(s.connId));
    }
  }

  /** Drops what waits for {@code s} (it is closing or gone). */
  private void discard(Socket s) {
    int n = s.out.queued();
    answers.changed(-s.out.ownBytes());
    s.out.discard();
    if (outbound.removed(n)) {
      resumePausedForRoom();
    }
  }

  /**
   * Over {@code limits.max_queued_answer_bytes}: closes the clients holding the most answers among those
   * whose sockets have been full for {@link AnswerBudget#STALL_MILLIS} (they read nothing meanwhile),
   * until back under. When none has yet, looks again once one may have: a client that reads is never
   * closed for the budget, and memory stays over it while such clients take their answers.
   */
  private void closeStalledOverAnswerBudget() {
    if (shedTimer >= 0) {
      return; // none could be closed a moment ago: the timer looks again
    }
    long stalledBefore = System.nanoTime() - AnswerBudget.STALL_MILLIS * 1_000_000L;
    while (answers.over()) {
      Socket most = null;
      for (Socket s : pausedForWrites) {
        if (!s.closing && s.pausedForWritesAt - stalledBefore <= 0 && s.out.ownBytes() > 0
            && (most == null || s.out.ownBytes() > most.out.ownBytes())) {
          most = s;
        }
      }
      if (most == null) {
        shedTimer = vertx.setTimer(AnswerBudget.STALL_MILLIS / 4, id -> {
          shedTimer = -1;
          if (answers.over()) {
            closeStalledOverAnswerBudget();
          }
        });
        return;
      }
      slowConsumer(most, "slow consumer: not reading its answers while more than " + answers.max()
          + " bytes of answers wait for this relay's clients");
    }
  }

  /** Closes a client that cannot keep up: what waits for it is dropped now, the TCP connection follows. */
  private void slowConsumer(Socket s, String reason) {
    LOG.info("closing " + s.ws.remoteAddress() + ": " + reason);
    metrics.slowConsumerClosed("ws");
    close(s, (short) 1008, reason);
  }

  /**
   * Sends the close frame after what is already on its way (queued messages are dropped), then makes
   * sure the TCP connection goes: see {@link #closeGrace}.
   */
  private void close(Socket s, short code, String reason) {
    if (s.closing && s.hardCloseTimer >= 0) {
      return;
    }
    s.closing = true;
    s.inputClosed = true;
    pausedForWrites.remove(s);
    discard(s);
    gone(s); // nothing more is read from it or written to it: its queries waiting for the store need not run
    if (s.slowTimer >= 0) {
      vertx.cancelTimer(s.slowTimer);
      s.slowTimer = -1;
    }
    long pending = s.out.socketPendingBytes();
    s.ws.resume(); // read the client's close reply, so a polite client completes the handshake at once
    s.ws.close(code, reason.length() > 120 ? reason.substring(0, 120) : reason);
    long now = System.nanoTime();
    closeGrace(s, pending, now, now);
  }

  /**
   * Every {@link #CLOSE_GRACE_MS} after a close: a client that read nothing for {@link #CLOSE_STALL_MS}
   * is cut (reset, the kernel's copy dropped too), so that
   * it cannot keep its socket and megabytes of frames. Once the close frame has reached the kernel, our
   * side of the TCP connection is shut (FIN after what the client has yet to read) while its close reply
   * is still read: a slow but reading client gets every frame before the close and its reason (closing
   * the socket instead would answer that reply with a reset, which clients report as 1006). Whatever
   * still stands at {@code limits.slow_consumer_timeout} is cut.
   */
  private void closeGrace(Socket s, long pendingBefore, long closedAt, long progressAt) {
    s.hardCloseTimer = vertx.setTimer(CLOSE_GRACE_MS, id -> {
      s.hardCloseTimer = -1;
      Channel ch = s.out.channel();
      if (!ch.isOpen()) {
        return;
      }
      long now = System.nanoTime();
      long pending = s.out.socketPendingBytes();
      long lastProgress = pending < pendingBefore ? now : progressAt;
      boolean reading = pending == 0 || now - lastProgress < CLOSE_STALL_MS * 1_000_000L;
      if (!reading || now - closedAt >= config.limits().slowConsumerTimeoutMillis() * 1_000_000L) {
        HardClose.now(ch);
        return;
      }
      if (pending == 0 && ch instanceof DuplexChannel tcp && !tcp.isOutputShutdown()) {
        tcp.shutdownOutput();
      }
      closeGrace(s, Math.min(pending, pendingBefore), closedAt, lastProgress);
    });
  }
}
