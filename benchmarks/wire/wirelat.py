#!/usr/bin/env python3
"""Relay-side latencies from packet captures on loopback: what the relay put on the wire, and when.

A load tool's latencies include the tool itself: its JIT in the first second, its event loops when
they are saturated with deliveries. This reads what crossed the relay's port instead. Client->server
bytes are reassembled per connection by TCP sequence number (retransmissions dropped) and their
WebSocket frames unmasked; an ["EVENT",{...}] frame counts as received when its last byte arrived.
Server->client segments are searched for ["OK","<id>" (the OK) and "id":"<id>" (a delivery of it).

Per event: EVENT->OK (first OK for its id) and EVENT->last delivery (the latest of the server->client
frames that carry its id: the slowest subscriber). Needs the whole client->server stream and the
server->client segments that matter; capture them apart so the deliveries need not all be kept
(tcpdump from Debian's package of that name, as root):

  tcpdump -i lo -s 0 -B 65536 -w in.pcap 'tcp dst port 7817' &
  # OKs only (segments that begin with an OK frame: what publishers get):
  tcpdump -i lo -s 0 -B 65536 -w out.pcap 'tcp src port 7817 and tcp[((tcp[12:1] & 0xf0) >> 2) + 2 : 4] = 0x5b224f4b' &
  # or everything the relay sends (deliveries too; fine at tens of thousands of deliveries/s):
  tcpdump -i lo -s 0 -B 65536 -w out.pcap 'tcp src port 7817' &
  ... run the load, then stop both with SIGINT ...
  python3 wirelat.py --port 7817 in.pcap out.pcap [--first 10]

Reads classic pcap files (Ethernet or Linux cooked link type, IPv4). Standard library only.
"""
import argparse
import collections
import re
import struct
import sys

ID = re.compile(rb'"id":"([0-9a-f]{64})"')
OK = re.compile(rb'\["OK","([0-9a-f]{64})"')


def packets(path):
    """(time, src port, dst port, tcp seq, payload) of each IPv4 TCP segment with a payload."""
    with open(path, 'rb') as f:
        magic, _, _, _, _, _, link = struct.unpack('<IHHiIII', f.read(24))
        if magic not in (0xa1b2c3d4, 0xa1b23c4d):
            sys.exit(path + ': not a little-endian classic pcap file')
        scale = 1e9 if magic == 0xa1b23c4d else 1e6
        skip = {1: 14, 113: 16}.get(link)
        if skip is None:
            sys.exit(path + ': link type %d not supported (capture on lo)' % link)
        while True:
            head = f.read(16)
            if len(head) < 16:
                return
            sec, frac, incl, _ = struct.unpack('<IIII', head)
            ip = f.read(incl)[skip:]
            if not ip or ip[0] >> 4 != 4 or ip[9] != 6:
                continue
            ihl = (ip[0] & 15) * 4
            total = struct.unpack('>H', ip[2:4])[0]
            tcp = ip[ihl:total]
            off = (tcp[12] >> 4) * 4
            if len(tcp) > off:
                sp, dp, seq = struct.unpack('>HHI', tcp[:8])
                yield sec + frac / scale, sp, dp, seq, tcp[off:]


class ClientStream:
    """One connection's client->server bytes in order, cut into unmasked WebSocket frames."""

    def __init__(self):
        self.buf = bytearray()
        self.next_seq = None
        self.upgraded = False
        self.broken = False  # bytes missing from the capture: the frame boundaries are lost

    def feed(self, seq, payload):
        if self.broken:
            return []
        if self.next_seq is not None:
            behind = (self.next_seq - seq) & 0xffffffff
            if 0 < behind < 0x80000000:  # starts before what we have: a retransmission
                if behind >= len(payload):
                    return []
                payload = payload[behind:]
            elif behind:
                self.broken = True
                return []
        self.next_seq = (seq + len(payload)) & 0xffffffff
        self.buf += payload
        if not self.upgraded:  # the HTTP upgrade request comes first
            end = self.buf.find(b'\r\n\r\n')
            if end < 0:
                return []
            del self.buf[:end + 4]
            self.upgraded = True
        frames, i, b = [], 0, self.buf
        while i + 2 <= len(b):
            n, j = b[i + 1] & 127, i + 2
            if n == 126:
                if j + 2 > len(b):
                    break
                n, j = struct.unpack('>H', b[j:j + 2])[0], j + 2
            elif n == 127:
                if j + 8 > len(b):
                    break
                n, j = struct.unpack('>Q', b[j:j + 8])[0], j + 8
            masked = b[i + 1] & 128
            if j + (4 if masked else 0) + n > len(b):
                break
            if masked:
                key, j = b[j:j + 4], j + 4
                frames.append(bytes(b[j + k] ^ key[k & 3] for k in range(n)))
            else:
                frames.append(bytes(b[j:j + n]))
            i = j + n
        del b[:i]
        return frames


def pct(sorted_ms, q):
    return sorted_ms[min(len(sorted_ms) - 1, int(len(sorted_ms) * q))]


def describe(name, values):
    if not values:
        return '%s: none' % name
    v = sorted(values)
    return '%s over %d events: p50 %.2f, p90 %.2f, p99 %.2f, max %.2f ms' % (
        name, len(v), pct(v, .5), pct(v, .9), pct(v, .99), v[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--port', type=int, required=True, help="the relay's port")
    ap.add_argument('--first', type=int, default=0, help='also list the first N events one by one')
    ap.add_argument('captures', nargs='+', help='pcap files (client->server and server->client, any split)')
    a = ap.parse_args()
    received, ok_at, last_delivery, order = {}, {}, {}, []
    streams = collections.defaultdict(ClientStream)
    for path in a.captures:
        for t, sp, dp, seq, payload in packets(path):
            if dp == a.port:
                for frame in streams[sp].feed(seq, payload):
                    m = ID.search(frame)
                    if m and frame.startswith(b'["EVENT",{') and m.group(1) not in received:
                        received[m.group(1)] = t
                        order.append(m.group(1))
            elif sp == a.port:
                for m in OK.finditer(payload):
                    ok_at.setdefault(m.group(1), t)
                for m in ID.finditer(payload):
                    last_delivery[m.group(1)] = max(t, last_delivery.get(m.group(1), 0))
    print('%d EVENT frames received, %d OKs, %d events delivered' % (len(received), len(ok_at), len(last_delivery)))
    broken = sum(1 for s in streams.values() if s.broken)
    if broken:
        print('%d connection(s) lost bytes in the capture: their frames after the gap are not counted' % broken)
    print(describe('EVENT->OK', [(ok_at[e] - received[e]) * 1000 for e in order if e in ok_at]))
    print(describe('EVENT->last delivery',
                   [(last_delivery[e] - received[e]) * 1000 for e in order if e in last_delivery]))
    for e in order[:a.first]:
        print('%9.1f ms  OK %7.2f  last delivery %7.2f' % (
            (received[e] - received[order[0]]) * 1000,
            (ok_at[e] - received[e]) * 1000 if e in ok_at else -1,
            (last_delivery[e] - received[e]) * 1000 if e in last_delivery else -1))


if __name__ == '__main__':
    main()
