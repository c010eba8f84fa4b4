package dev.cairn.network;

import dev.cairn.config.Limits;
import dev.cairn.nostr.ClientMessage;
import dev.cairn.nostr.ClientMessageParser;
import dev.cairn.nostr.EventTags;
import dev.cairn.nostr.Filter;
import dev.cairn.nostr.Hex;
import dev.cairn.nostr.InvalidMessageException;
import dev.cairn.nostr.Kinds;
import dev.cairn.nostr.NostrEvent;
import dev.cairn.nostr.RelayMessages;
import dev.cairn.tree.Addresses;
import dev.cairn.tree.BoundedChannel;
import dev.cairn.tree.Channels;
import dev.cairn.tree.Inbox;
import dev.cairn.tree.OrderedSender;
import dev.cairn.tree.Supervised;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Per-connection protocol state: parses client frames, enforces the per-connection limits and
 * formats every outgoing frame. Holds no socket, no filter and no routing table: it answers
 * network-manager and writes formatted frames to the connection's listener.
 */
final class ConnWorker extends Supervised {
  private final int index;
  private final Limits limits;
  private final Channels channels;
  private final Map<Long, ConnState> conns = new HashMap<>();
  private final Map<Integer, BoundedChannel<ListenerInbox>> listeners = new HashMap<>();
  private OrderedSender<NetworkInbox> toManager;
  private Inbox<ConnWorkerInbox> inbox;

  /** What this worker knows of one connection. */
  private static final class ConnState {
    final String tenant;
    final int listener;
    final Set<String> subIds = new HashSet<>();
    /** NIP-42: the challenge issued to this connection (null until needed) and who it proved to be. */
    String challenge;
    String authedPubkey;

    ConnState(String tenant, int listener) {
      this.tenant = tenant;
      this.listener = listener;
    }
  }

  ConnWorker(int index, Limits limits, Channels channels, CrashReporter manager) {
    super(manager);
    this.index = index;
    this.limits = limits;
    this.channels = channels;
  }

  @Override
  protected Future<?> startNode() {
    toManager = new OrderedSender<>(channels.open("conn-worker->network-manager", Addresses.NETWORK_MANAGER));
    inbox = new Inbox<>(vertx, Addresses.connWorker(index), ConnWorkerInbox.class, this::handle);
    return Future.succeededFuture();
  }

  private BoundedChannel<ListenerInbox> listener(int i) {
    return listeners.computeIfAbsent(i, x -> channels.open("conn-worker->listener", Addresses.listener(x)));
  }

  private void write(long connId, ConnState c, List<String> frames) {
    listener(c.listener).sendOwed(new ListenerInbox.Write(connId, frames));
  }

  private void write(long connId, ConnState c, String frame) {
    write(connId, c, List.of(frame));
  }

  private void handle(ConnWorkerInbox msg) {
    if (msg instanceof ConnWorkerInbox.Parse p) {
      ConnState c = conns.get(p.connId());
      if (c != null) {
        parse(p.connId(), c, p.text());
      }
      return;
    }
    if (msg instanceof ConnWorkerInbox.BadFrame b) {
      ConnState c = conns.get(b.connId());
      if (c != null) {
        write(b.connId(), c, RelayMessages.notice(b.notice()));
        if (b.closeCode() > 0) {
          listener(c.listener).sendOwed(new ListenerInbox.Close(b.connId(), b.closeCode(), b.notice()));
        }
      }
      return;
    }
    if (msg instanceof ConnWorkerInbox.Attach a) {
      ConnState c = new ConnState(a.tenant(), a.listener());
      conns.put(a.connId(), c);
      if (limits.authRequired()) {
        challenge(a.connId(), c);
      }
      return;
    }
    if (msg instanceof ConnWorkerInbox.Detach d) {
      conns.remove(d.connId());
      return;
    }
    long connId = connIdOf(msg);
    ConnState c = conns.get(connId);
    if (c == null) {
      return;
    }
    if (msg instanceof ConnWorkerInbox.Ok o) {
      write(connId, c, RelayMessages.ok(o.eventId(), o.accepted(), o.message()));
    } else if (msg instanceof ConnWorkerInbox.Live l) {
      List<String> frames = new ArrayList<>(l.subIds().size());
      for (String subId : l.subIds()) {
        frames.add(RelayMessages.event(subId, l.eventJson()));
      }
      write(connId, c, frames);
    } else if (msg instanceof ConnWorkerInbox.History h) {
      List<String> frames = new ArrayList<>(h.eventJsons().size() + h.heldLive().size() + 1);
      for (String json : h.eventJsons()) {
        frames.add(RelayMessages.event(h.subId(), json));
      }
      frames.add(RelayMessages.eose(h.subId()));
      for (String json : h.heldLive()) {
        frames.add(RelayMessages.event(h.subId(), json));
      }
      write(connId, c, frames);
    } else if (msg instanceof ConnWorkerInbox.Authenticated a) {
      if (a.ok()) {
        c.authedPubkey = a.pubkey();
      }
      write(connId, c, RelayMessages.ok(a.eventId(), a.ok(), a.message()));
    } else if (msg instanceof ConnWorkerInbox.Counted n) {
      write(connId, c, RelayMessages.count(n.subId(), n.count()));
    } else if (msg instanceof ConnWorkerInbox.Refused r) {
      c.subIds.remove(r.subId());
      write(connId, c, RelayMessages.closed(r.subId(), r.message()));
    }
  }

  private static long connIdOf(ConnWorkerInbox msg) {
    if (msg instanceof ConnWorkerInbox.Ok o) {
      return o.connId();
    } else if (msg instanceof ConnWorkerInbox.Live l) {
      return l.connId();
    } else if (msg instanceof ConnWorkerInbox.History h) {
      return h.connId();
    } else if (msg instanceof ConnWorkerInbox.Counted n) {
      return n.connId();
    } else if (msg instanceof ConnWorkerInbox.Authenticated a) {
      return a.connId();
    } else if (msg instanceof ConnWorkerInbox.Refused r) {
      return r.connId();
    }
    throw new IllegalStateException("unexpected conn-worker message " + msg);
  }

  private void parse(long connId, ConnState c, String text) {
    if (Utf8.length(text, limits.maxMessageLength()) > limits.maxMessageLength()) {
      write(connId, c, RelayMessages.notice("invalid: message is longer than " + limits.maxMessageLength() + " bytes"));
      listener(c.listener).sendOwed(new ListenerInbox.Close(connId, (short) 1009, "message too big"));
      return;
    }
    ClientMessage m;
    try {
      m = ClientMessageParser.parse(text, limits.maxSubidLength(), limits.maxFilters());
    } catch (InvalidMessageException e) {
      if (e.eventId() != null) {
        write(connId, c, RelayMessages.ok(e.eventId(), false, e.getMessage()));
      } else if (e.subId() != null) {
        write(connId, c, RelayMessages.closed(e.subId(), e.getMessage()));
      } else {
        write(connId, c, RelayMessages.notice(e.getMessage()));
      }
      return;
    }
    if (m instanceof ClientMessage.EventMessage em) {
      publish(connId, c, em.event());
    } else if (m instanceof ClientMessage.ReqMessage req) {
      subscribe(connId, c, req.subId(), req.filters(), false);
    } else if (m instanceof ClientMessage.CountMessage cm) {
      subscribe(connId, c, cm.subId(), cm.filters(), true);
    } else if (m instanceof ClientMessage.CloseMessage close) {
      if (c.subIds.remove(close.subId())) {
        toManager.send(new NetworkInbox.Unsubscribe(connId, close.subId()), inbox);
      }
    } else if (m instanceof ClientMessage.AuthMessage auth) {
      authenticate(connId, c, auth.event());
    }
  }

  /** Sends this connection its NIP-42 challenge, once. */
  private void challenge(long connId, ConnState c) {
    if (c.challenge == null) {
      byte[] r = new byte[16];
      java.util.concurrent.ThreadLocalRandom.current().nextBytes(r);
      c.challenge = Hex.encode(r);
      write(connId, c, RelayMessages.auth(c.challenge));
    }
  }

  /** NIP-42: the AUTH event must answer our challenge, be recent, name a relay and be signed. */
  private void authenticate(long connId, ConnState c, NostrEvent e) {
    String reason = null;
    if (e.kind() != Kinds.AUTH) {
      reason = "invalid: AUTH event must be kind 22242";
    } else if (c.challenge == null || !c.challenge.equals(EventTags.first(e, "challenge"))) {
      reason = "invalid: AUTH event does not answer this connection's challenge";
    } else if (Math.abs(System.currentTimeMillis() / 1000 - e.createdAt()) > 600) {
      reason = "invalid: AUTH event created_at must be within 10 minutes of now";
    } else if (EventTags.first(e, "relay") == null) {
      reason = "invalid: AUTH event has no relay tag";
    }
    if (reason != null) {
      write(connId, c, RelayMessages.ok(e.id(), false, reason));
      challenge(connId, c);
      return;
    }
    toManager.send(new NetworkInbox.Authenticate(connId, e), inbox);
  }

  private boolean mustAuthenticate(long connId, ConnState c) {
    if (limits.authRequired() && c.authedPubkey == null) {
      challenge(connId, c);
      return true;
    }
    return false;
  }

  private void publish(long connId, ConnState c, NostrEvent e) {
    if (mustAuthenticate(connId, c)) {
      write(connId, c, RelayMessages.ok(e.id(), false, "auth-required: this relay requires NIP-42 authentication"));
      return;
    }
    if (EventTags.isProtected(e) && !e.pubkey().equals(c.authedPubkey)) {
      write(connId, c, RelayMessages.ok(e.id(), false, c.authedPubkey == null
          ? "auth-required: this event may only be published by its authenticated author"
          : "restricted: this event may only be published by its author"));
      challenge(connId, c);
      return;
    }
    if (Utf8.length(e.content(), limits.maxContentLength()) > limits.maxContentLength()) {
      write(connId, c, RelayMessages.ok(e.id(), false,
          "invalid: content is longer than " + limits.maxContentLength() + " bytes"));
      return;
    }
    if (e.tags().size() > limits.maxEventTags()) {
      write(connId, c, RelayMessages.ok(e.id(), false, "invalid: more than " + limits.maxEventTags() + " tags"));
      return;
    }
    toManager.send(new NetworkInbox.Publish(connId, e, c.authedPubkey), inbox);
  }

  private void subscribe(long connId, ConnState c, String subId, List<Filter> filters, boolean count) {
    if (mustAuthenticate(connId, c)) {
      write(connId, c, RelayMessages.closed(subId, "auth-required: this relay requires NIP-42 authentication"));
      return;
    }
    if (!count) {
      if (!c.subIds.contains(subId) && c.subIds.size() >= limits.maxSubscriptions()) {
        write(connId, c, RelayMessages.closed(subId,
            "rate-limited: too many open subscriptions (max " + limits.maxSubscriptions() + "), close one first"));
        return;
      }
      c.subIds.add(subId);
    }
    toManager.send(new NetworkInbox.Subscribe(connId, subId, filters, count), inbox);
  }

}
