package dev.cairn.delivery.feed;

import dev.cairn.delivery.DeliveryInbox;
import dev.cairn.delivery.FeedInbox;
import dev.cairn.network.ListenerInbox;
import dev.cairn.store.FeedCommand;
import dev.cairn.store.feed.FeedBounds;
import dev.cairn.store.feed.FeedMetrics;
import dev.cairn.store.feed.FeedPage;
import dev.cairn.nostr.JsonBytes;
import dev.cairn.store.feed.FeedRow;
import dev.cairn.store.feed.FeedSettings;
import dev.cairn.store.DatabaseInbox;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.OrderedSender;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The SSE feed sessions (seed 003, item 4), on delivery's event loop. A session never polls:
 *
 * <ul>
 *   <li>Open: one bounds read; no cursor, another epoch, a cursor above the high seq or below the
 *       oldest retained seq − 1 gets its {@code reset} and a heartbeat, then goes live at the high seq.
 *   <li>Phase 1: pages of {@code sse.page_size} after the cursor until a short page (the next page is
 *       read while the last one is written: at most one read ahead per stream), a keepalive
 *       comment after every 1000 events or 5 s (not a heartbeat: the first heartbeat means "caught
 *       up", CONTRACT section 4), then the first heartbeat.
 *   <li>Phase 2: a {@code FeedWake} above what was scanned pulls; a full page pulls again, at most 10
 *       full pages per wake, then a ~10 ms catch-up timer re-arms; only a short page disarms. Query
 *       errors back off 10 ms doubling to 1 s, reset by a success.
 *   <li>Backpressure: one chunk in flight per stream; the next page is read only after the listener
 *       said the response is writable (its write queue is not full), so nothing buffers without bound.
 * </ul>
 *
 * Periodic heartbeats ({@code sse.heartbeat_interval}) are in memory: a quiet tenant's connected
 * streams cause no DB read at all.
 */
public final class FeedSessions {
  /** Bytes of a stored frame around its event JSON (id and event lines, seq and ts), with room to spare. */
  private static final int STORED_FRAME_OVERHEAD = 128;
  /** Bytes of any other frame (a deleted row: id, kind, pubkey and reason), with room to spare. */
  private static final int FRAME_OVERHEAD = 400;
  private final Vertx vertx;
  private final Channels channels;
  private final FeedSettings settings;
  private final FeedMetrics metrics;
  private final Map<Long, FeedSession> sessions = new HashMap<>();
  private final Map<String, List<FeedSession>> byTenant = new HashMap<>();
  private final Map<Integer, BoundedChannel<ListenerInbox>> toListeners = new HashMap<>();
  /** Feed reads go to database-engine with credit; without credit they wait in order (at most one per stream). */
  private final OrderedSender<DatabaseInbox> toDatabase;

  public FeedSessions(Vertx vertx, Channels channels, FeedSettings settings, FeedMetrics metrics) {
    this.vertx = vertx;
    this.channels = channels;
    this.settings = settings;
    this.metrics = metrics;
    BoundedChannel<DatabaseInbox> db = channels.open("delivery->database-engine.feed", Addresses.DATABASE_ENGINE);
    db.onReset(this::engineReplaced);
    this.toDatabase = new OrderedSender<>(db);
  }

  /** database-engine was redeployed: the reads it held are lost, each stream waiting on one asks again. */
  private void engineReplaced() {
    toDatabase.clear();
    for (FeedSession s : sessions.values()) {
      if (s.querying) {
        if (s.opened) {
          pull(s);
        } else {
          toDatabase.send(new FeedCommand.Open(s.id, s.tenant));
        }
      }
    }
  }

  /** A listener was redeployed: its responses died with it, so do their sessions. */
  private void listenerReplaced(int listener, long firstStreamId) {
    for (FeedSession s : List.copyOf(sessions.values())) {
      if (s.listener == listener && s.id < firstStreamId) {
        closed(s.id);
      }
    }
  }

  /** Streams open now. */
  public int size() {
    return sessions.size();
  }

  public void wake(DeliveryInbox.FeedWake w) {
    List<FeedSession> list = byTenant.get(w.tenant());
    if (list == null) {
      return;
    }
    for (FeedSession s : list) {
      if (w.highSeq() == DeliveryInbox.FeedWake.UNKNOWN_HIGH) {
        s.hinted = true;
      }
      s.knownHigh = Math.max(s.knownHigh, w.highSeq());
      if (s.live && s.idle() && (s.knownHigh > s.scanned || s.hinted) && s.writable) {
        s.fullPages = 0;
        pull(s);
      }
    }
  }

  public void handle(FeedInbox msg) {
    if (msg instanceof FeedInbox.SseOpen o) {
      open(o);
    } else if (msg instanceof FeedInbox.FeedOpened o) {
      opened(o);
    } else if (msg instanceof FeedInbox.FeedPageRead p) {
      pageRead(p);
    } else if (msg instanceof FeedInbox.SseWritable w) {
      writable(w);
    } else if (msg instanceof FeedInbox.SseClosed c) {
      closed(c.streamId());
    } else if (msg instanceof FeedInbox.ListenerStarted l) {
      listenerReplaced(l.listener(), l.firstStreamId());
    }
  }

  private void open(FeedInbox.SseOpen o) {
    FeedSession s = new FeedSession(o.streamId(), o.listener(), o.tenant(), o.cursorEpoch(), o.cursorSeq(),
        o.kinds(), o.authors());
    sessions.put(s.id, s);
    byTenant.computeIfAbsent(s.tenant, t -> new ArrayList<>()).add(s);
    metrics.sseConnections(s.tenant).incrementAndGet();
    s.querying = true;
    toDatabase.send(new FeedCommand.Open(s.id, s.tenant));
  }

  private void opened(FeedInbox.FeedOpened o) {
    FeedSession s = sessions.get(o.sessionId());
    if (s == null || !s.querying) {
      return; // closed, or a late answer of a replaced engine (the query was asked again)
    }
    s.querying = false;
    if (o.error() != null) {
      // No bounds, no cursor check: end the stream, the client reconnects with its cursor.
      write(s, new byte[0], false, true);
      closed(s.id);
      return;
    }
    s.opened = true;
    s.epoch = o.epoch();
    FeedBounds b = o.bounds();
    s.lastHeartbeatAt = System.currentTimeMillis();
    String reset = null;
    if (s.cursorSeq == null) {
      reset = "initial_sync";
    } else if ((s.cursorEpoch != null && !s.cursorEpoch.equals(s.epoch)) || s.cursorSeq > b.high()) {
      reset = "server_restart";
    } else if (s.cursorSeq < b.oldest() - 1) {
      reset = "seq_too_old";
    }
    s.heartbeatTimer = vertx.setPeriodic(settings.heartbeatInterval().toMillis(), id -> periodicHeartbeat(s));
    if (reset != null) {
      metrics.resetSent(reset);
      s.scanned = b.high();
      s.live = true;
      JsonBytes out = new JsonBytes(512);
      SseFrames.reset(out, reset, s.epoch, b.oldest(), b.high());
      SseFrames.heartbeat(out, s.epoch, s.scanned);
      write(s, out.toByteArray(), true, false);
      return;
    }
    s.scanned = s.cursorSeq;
    pull(s); // Phase 1
  }

  private void pull(FeedSession s) {
    s.querying = true;
    s.hinted = false;
    s.next = FeedSession.Next.NONE;
    toDatabase.send(new FeedCommand.Page(s.id, s.tenant, s.scanned, settings.pageSize(), s.kinds, s.authors));
  }

  private void pageRead(FeedInbox.FeedPageRead p) {
    FeedSession s = sessions.get(p.sessionId());
    if (s == null || !s.querying) {
      return;
    }
    s.querying = false;
    if (s.chunkOut || !s.writable) {
      s.prefetched = p; // read ahead during the replay: sent once the chunk before it is written
      return;
    }
    sendPage(s, p);
  }

  private void sendPage(FeedSession s, FeedInbox.FeedPageRead p) {
    if (p.error() != null) {
      s.errorBackoff = s.errorBackoff == 0 ? FeedSettings.ERROR_BACKOFF_INITIAL_MILLIS
          : Math.min(s.errorBackoff * 2, FeedSettings.ERROR_BACKOFF_MAX_MILLIS);
      arm(s, s.errorBackoff);
      return;
    }
    s.errorBackoff = 0;
    FeedPage page = p.page();
    int size = 256;
    for (FeedRow r : page.rows()) {
      size += r.json() == null ? FRAME_OVERHEAD : r.json().length + STORED_FRAME_OVERHEAD; // one buffer, never grown
    }
    JsonBytes out = new JsonBytes(size);
    for (FeedRow r : page.rows()) {
      if (r.hasFrame()) {
        SseFrames.row(out, s.epoch, r);
      }
    }
    s.scanned = Math.max(s.scanned, page.scannedTo());
    s.eventsSinceHeartbeat += page.rows().size();
    long now = System.currentTimeMillis();
    if (!s.live) {
      if (!page.full()) {
        s.live = true; // the first heartbeat: caught up
        heartbeat(out, s, now);
      } else {
        if (s.eventsSinceHeartbeat >= FeedSettings.REPLAY_HEARTBEAT_EVENTS
            || now - s.lastHeartbeatAt >= FeedSettings.REPLAY_HEARTBEAT_INTERVAL.toMillis()) {
          SseFrames.replaying(out, s.epoch, s.scanned);
          s.lastHeartbeatAt = now;
          s.eventsSinceHeartbeat = 0;
        }
        s.next = FeedSession.Next.PULL;
      }
    } else if (page.full()) {
      s.fullPages++;
      if (s.eventsSinceHeartbeat >= FeedSettings.REPLAY_HEARTBEAT_EVENTS) {
        heartbeat(out, s, now);
      }
      if (s.fullPages < FeedSettings.MAX_FULL_PAGES_PER_WAKE) {
        s.next = FeedSession.Next.PULL;
      } else {
        s.fullPages = 0;
        s.next = FeedSession.Next.CATCH_UP;
      }
    } else {
      s.fullPages = 0;
      s.next = FeedSession.Next.NONE; // a short page disarms
    }
    if (out.length() > 0) {
      write(s, out.toByteArray(), true, false);
      if (!s.live && s.next == FeedSession.Next.PULL && s.writable) {
        // Replay: read the next page while this one is written, so the DB read and the socket
        // overlap instead of taking turns (at most one page read ahead per stream).
        pull(s);
      }
    } else {
      advance(s);
    }
  }

  private void heartbeat(JsonBytes out, FeedSession s, long now) {
    SseFrames.heartbeat(out, s.epoch, s.scanned);
    s.lastHeartbeatAt = now;
    s.eventsSinceHeartbeat = 0;
  }

  private void writable(FeedInbox.SseWritable w) {
    FeedSession s = sessions.get(w.streamId());
    if (s == null) {
      return;
    }
    s.chunkOut = false;
    s.writable = w.writable();
    if (s.prefetched != null) {
      if (s.writable) {
        FeedInbox.FeedPageRead p = s.prefetched;
        s.prefetched = null;
        sendPage(s, p);
      }
      return;
    }
    advance(s);
  }

  /** After a chunk was written (or nothing had to be): the next step, if the response can take it. */
  private void advance(FeedSession s) {
    if (s.closed || s.querying || s.chunkOut || !s.writable || s.timer >= 0 || !s.opened) {
      return;
    }
    FeedSession.Next next = s.next;
    s.next = FeedSession.Next.NONE;
    if (next == FeedSession.Next.PULL) {
      pull(s);
    } else if (next == FeedSession.Next.CATCH_UP) {
      arm(s, FeedSettings.CATCH_UP_MILLIS);
    } else if (s.live && (s.knownHigh > s.scanned || s.hinted)) {
      s.fullPages = 0;
      pull(s); // a wake came while this stream was busy
    }
  }

  private void arm(FeedSession s, long delay) {
    s.timer = vertx.setTimer(delay, id -> {
      s.timer = -1;
      if (!s.closed) {
        if (s.writable && !s.chunkOut) {
          pull(s);
        } else {
          s.next = FeedSession.Next.PULL;
        }
      }
    });
  }

  private void periodicHeartbeat(FeedSession s) {
    if (!s.live || s.chunkOut || !s.writable || s.closed) {
      return; // data is flowing, or the client is not reading: no need, no room
    }
    JsonBytes out = new JsonBytes(128);
    heartbeat(out, s, System.currentTimeMillis());
    write(s, out.toByteArray(), false, false);
  }

  private void write(FeedSession s, byte[] chunk, boolean ack, boolean end) {
    if (ack) {
      s.chunkOut = true;
    }
    toListeners.computeIfAbsent(s.listener, this::openToListener).sendOwed(new ListenerInbox.SseWrite(s.id, chunk, ack, end));
  }

  private void closed(long streamId) {
    FeedSession s = sessions.remove(streamId);
    if (s == null) {
      return;
    }
    s.closed = true;
    if (s.timer >= 0) {
      vertx.cancelTimer(s.timer);
    }
    if (s.heartbeatTimer >= 0) {
      vertx.cancelTimer(s.heartbeatTimer);
    }
    List<FeedSession> list = byTenant.get(s.tenant);
    if (list != null) {
      list.remove(s);
      if (list.isEmpty()) {
        byTenant.remove(s.tenant);
      }
    }
    metrics.sseConnections(s.tenant).decrementAndGet();
  }

  private BoundedChannel<ListenerInbox> openToListener(int i) {
    return channels.open("delivery->listener-" + i + ".feed", Addresses.listener(i));
  }
}
