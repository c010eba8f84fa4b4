// EVENT→OK latency per connection, from a client in another language and WebSocket library (Node, `ws`)
// than the Java load tools: C connections each keep W pre-signed events (one JSON event per line, as
// GenerateEvents writes them) in flight for D seconds, then wait for the last OKs. Counts only OKs after
// the first 5 s. Prints the overall p50/p90/p99/max, the spread of the connections' own p50 and p99
// (a relay that serves some connections before others shows it there), and the gaps of 15 ms or more
// in which no OK arrived at all (a relay that answers in bursts, e.g. once per group commit, shows it
// there). Exit status 1 when an OK is missing 30 s after the end, or when the relay refused an event
// (OK false other than "duplicate:"): its latencies would then not be those of stored events.
//
//   cd benchmarks/node && npm install && node window.mjs ws://127.0.0.1:PORT EVENTS.jsonl C W D
import WebSocket from 'ws';
import fs from 'fs';

const [url, file] = [process.argv[2], process.argv[3]];
const [conns, window, seconds] = [Number(process.argv[4]), Number(process.argv[5]), Number(process.argv[6])];
const SKIP_MS = 5000;
const GAP_MS = 15;
if (!url || !file || !(conns > 0) || !(window > 0) || !(seconds > SKIP_MS / 1000)) {
  console.error('usage: node window.mjs ws://HOST:PORT EVENTS.jsonl CONNECTIONS WINDOW SECONDS (SECONDS > 5)');
  process.exit(2);
}
const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
const sockets = [];
for (let c = 0; c < conns; c++) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject); });
  ws.pending = new Map();
  ws.latencies = [];
  sockets.push(ws);
}

const all = [];
const arrivals = [];
const refused = [];
let next = 0;
let stopped = false;
const t0 = Date.now();

function send(ws) {
  if (stopped || next >= lines.length) return;
  const line = lines[next++];
  const at = line.indexOf('"id":"') + 6;
  ws.pending.set(line.slice(at, at + 64), process.hrtime.bigint());
  ws.send('["EVENT",' + line + ']');
}

const finished = new Promise(resolve => {
  let open = conns;
  const settle = ws => { if (!ws.done && stopped && ws.pending.size === 0) { ws.done = true; if (--open === 0) resolve(true); } };
  setTimeout(() => { stopped = true; sockets.forEach(settle); }, seconds * 1000);
  setTimeout(() => resolve(false), seconds * 1000 + 30000);
  for (const ws of sockets) {
    ws.on('message', data => {
      const m = JSON.parse(data);
      if (m[0] !== 'OK') return;
      const sent = ws.pending.get(m[1]);
      if (sent === undefined) return;
      ws.pending.delete(m[1]);
      if (m[2] !== true && !String(m[3]).startsWith('duplicate:')) refused.push(String(m[3]));
      const now = Date.now() - t0;
      if (now > SKIP_MS) {
        const ms = Number(process.hrtime.bigint() - sent) / 1e6;
        ws.latencies.push(ms);
        all.push(ms);
        arrivals.push(now);
      }
      send(ws);
      settle(ws);
    });
    for (let i = 0; i < window; i++) send(ws);
  }
});
const complete = await finished;

const q = (values, p) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(p * s.length))];
};
const f = v => v.toFixed(1);
const span = seconds - SKIP_MS / 1000;
console.log(`${all.length} OKs in the last ${span} s (${(all.length / span).toFixed(0)}/s): EVENT->OK p50 ${f(q(all, 0.5))}`
  + ` p90 ${f(q(all, 0.9))} p99 ${f(q(all, 0.99))} max ${f(q(all, 1))} ms`);
const p50s = sockets.map(ws => q(ws.latencies, 0.5)).sort((a, b) => a - b);
const p99s = sockets.map(ws => q(ws.latencies, 0.99)).sort((a, b) => a - b);
const counts = sockets.map(ws => ws.latencies.length).sort((a, b) => a - b);
const mid = conns >> 1;
console.log(`per connection: p50 min ${f(p50s[0])} median ${f(p50s[mid])} max ${f(p50s[conns - 1])} ms;`
  + ` p99 min ${f(p99s[0])} median ${f(p99s[mid])} max ${f(p99s[conns - 1])} ms; OKs ${counts[0]}..${counts[conns - 1]}`);
const gaps = [];
for (let i = 1; i < arrivals.length; i++) {
  const gap = arrivals[i] - arrivals[i - 1];
  if (gap >= GAP_MS) gaps.push({ at: arrivals[i - 1], gap });
}
gaps.sort((a, b) => b.gap - a.gap);
console.log(`gaps of ${GAP_MS} ms or more without an OK: ${gaps.length}, ${gaps.reduce((sum, g) => sum + g.gap, 0)} ms in all;`
  + ` largest ${gaps.slice(0, 8).map(g => `${g.gap} ms at ${(g.at / 1000).toFixed(1)} s`).join(', ')}`);
if (!complete) {
  console.log(`missing OKs 30 s after the end: ${sockets.reduce((sum, ws) => sum + ws.pending.size, 0)}`);
}
if (refused.length > 0) {
  console.log(`refused: ${refused.length} (first: ${refused[0]})`);
}
process.exit(complete && refused.length === 0 ? 0 : 1);
