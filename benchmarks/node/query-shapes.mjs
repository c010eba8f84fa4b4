// Query shapes the Java query scenarios do not send, from another client (Node, `ws`): each shape is a
// set of REQs built from the events a relay was preloaded with (one JSON event per line, as
// GenerateEvents writes them), sent closed loop (REQ, wait for EOSE, CLOSE, next) over C connections
// for S seconds after a 2-s unmeasured run, on each relay in turn. Prints one JSON line per shape and
// relay (queries/s, events per query, REQ->EOSE p50/p90/p99), then a table with the first relay's
// figures over the second's. The shapes are deterministic for a seed:
//   follow500   a home feed: 500 authors, kinds 1 and 6, limit 500
//   follow1000  1,000 authors, kinds 1, 6 and 7, limit 200
//   ids500      500 ids (a client re-fetching what it has seen)
//   thread      100 #e values (a thread's replies and reactions), kinds 1 and 7, no limit
//   notif       one #p value (a user's notifications), kinds 1, 6 and 7, limit 100
//   multi       three filters in one REQ: profiles of 100 authors, contact lists of 50, the newest 50 notes
//   window      since/until one twentieth of the file's time span, no limit
//   reactions   kind 7 since a random point in the last three quarters, no limit
// --deflate 1 offers permessage-deflate, as browsers and `ws` by default do (the relay may accept it).
//
//   cd benchmarks/node && npm install && \
//     node query-shapes.mjs --file EVENTS.jsonl [--max-events N] --url ws://A [--url ws://B] \
//       [--connections 4] [--duration 8] [--seed 7] [--deflate 0] [--only thread,notif]
import WebSocket from 'ws';
import fs from 'fs';

const opts = { url: [], connections: 4, duration: 8, seed: 7, deflate: 0, 'max-events': Infinity };
for (let i = 2; i < process.argv.length; i += 2) {
  const k = process.argv[i].replace(/^--/, '');
  const v = process.argv[i + 1];
  if (!['url', 'file', 'max-events', 'connections', 'duration', 'seed', 'deflate', 'only'].includes(k)) {
    console.error(`unknown option ${process.argv[i]}`);
    process.exit(2);
  }
  if (v === undefined) { console.error(`--${k} takes a value`); process.exit(2); }
  if (k === 'url') opts.url.push(v); else opts[k] = /^\d+$/.test(v) ? Number(v) : v;
}
if (!opts.file || opts.url.length === 0) {
  console.error('usage: node query-shapes.mjs --file EVENTS.jsonl --url ws://HOST:PORT [--url ...] [--connections C]'
    + ' [--duration S] [--seed N] [--deflate 0|1] [--max-events N] [--only a,b]');
  process.exit(2);
}

// a small seeded generator (mulberry32): the same REQs for every relay and run
let state = opts.seed >>> 0;
const random = () => {
  state = (state + 0x6D2B79F5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = a => a[Math.floor(random() * a.length)];
const sample = (a, n) => {
  const out = new Set();
  while (out.size < Math.min(n, a.length)) out.add(pick(a));
  return [...out];
};

const events = [];
for (const line of fs.readFileSync(opts.file, 'utf8').split('\n')) {
  if (!line) continue;
  if (events.length >= opts['max-events']) break;
  events.push(JSON.parse(line));
}
const authors = [...new Set(events.map(e => e.pubkey))];
const ids = events.map(e => e.id);
const tagValues = name => events.flatMap(e => e.tags.filter(t => t[0] === name).map(t => t[1]));
const eTags = tagValues('e');
const pTags = tagValues('p');
const lo = events.reduce((m, e) => Math.min(m, e.created_at), Infinity);
const hi = events.reduce((m, e) => Math.max(m, e.created_at), -Infinity);
const span = hi - lo;
const between = (a, b) => a + Math.floor(random() * Math.max(1, b - a));

const shapes = {
  follow500: () => [{ authors: sample(authors, 500), kinds: [1, 6], limit: 500 }],
  follow1000: () => [{ authors: sample(authors, 1000), kinds: [1, 6, 7], limit: 200 }],
  ids500: () => [{ ids: sample(ids, 500) }],
  thread: () => [{ '#e': sample(eTags, 100), kinds: [1, 7] }],
  notif: () => [{ '#p': [pick(pTags)], kinds: [1, 6, 7], limit: 100 }],
  multi: () => [{ kinds: [0], authors: sample(authors, 100) }, { kinds: [3], authors: sample(authors, 50) },
    { kinds: [1], limit: 50 }],
  window: () => { const s = between(lo, hi - Math.floor(span / 20)); return [{ since: s, until: s + Math.floor(span / 20) }]; },
  reactions: () => [{ kinds: [7], since: between(lo, hi - Math.floor(span / 4)) }],
};
const chosen = opts.only ? String(opts.only).split(',') : Object.keys(shapes);
const reqs = {};
for (const name of chosen) {
  if (!shapes[name]) { console.error(`no shape ${name}; shapes: ${Object.keys(shapes).join(', ')}`); process.exit(2); }
  reqs[name] = Array.from({ length: 50 }, () => JSON.stringify(shapes[name]()).slice(1, -1));
}

/** Closed loop over `conns` connections for `seconds`; resolves with the figures. */
async function run(url, filters, conns, seconds) {
  const latencies = [];
  let delivered = 0;
  let refused = 0;
  let next = 0;
  const end = Date.now() + seconds * 1000;
  const one = () => new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { perMessageDeflate: opts.deflate === 1 });
    let started = 0n;
    let count = 0;
    let sub = 0;
    const send = () => {
      if (Date.now() > end) { ws.close(); resolve(); return; }
      sub++;
      count = 0;
      started = process.hrtime.bigint();
      ws.send(`["REQ","s${sub}",${filters[next++ % filters.length]}]`);
    };
    ws.on('open', send);
    ws.on('error', reject);
    ws.on('message', data => {
      const m = data.toString();
      if (m.startsWith('["EVENT"')) { count++; return; }
      if (m.startsWith('["EOSE"')) {
        latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
        delivered += count;
        ws.send(`["CLOSE","s${sub}"]`);
        send();
      } else if (m.startsWith('["CLOSED"')) {
        refused++;
        console.error(`${url}: ${m.slice(0, 200)}`);
        send();
      }
    });
  });
  await Promise.all(Array.from({ length: conns }, one));
  latencies.sort((a, b) => a - b);
  const q = p => latencies.length ? +latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(2) : null;
  return { queries: latencies.length, qps: +(latencies.length / seconds).toFixed(1),
    events_per_query: +(delivered / Math.max(1, latencies.length)).toFixed(1), p50_ms: q(0.5), p90_ms: q(0.9),
    p99_ms: q(0.99), refused };
}

const table = [];
for (const name of chosen) {
  const row = { shape: name };
  for (const url of opts.url) {
    await run(url, reqs[name], opts.connections, 2); // unmeasured: the relay's caches and JIT, the client's JIT
    const r = await run(url, reqs[name], opts.connections, opts.duration);
    console.log(JSON.stringify({ scenario: 'query-shapes', shape: name, url, connections: opts.connections,
      seconds: opts.duration, deflate: opts.deflate, ...r }));
    row[url] = r;
  }
  table.push(row);
}
const [a, b] = opts.url;
console.log(`\n| shape | ${opts.url.map(u => `${u} q/s; p50 / p99 ms`).join(' | ')}${b ? ' | q/s ratio' : ''} |`);
console.log(`| --- |${opts.url.map(() => ' ---: |').join('')}${b ? ' ---: |' : ''}`);
for (const row of table) {
  const cells = opts.url.map(u => `${row[u].qps}; ${row[u].p50_ms} / ${row[u].p99_ms}`);
  const ratio = b ? ` | ${(row[a].qps / Math.max(0.1, row[b].qps)).toFixed(2)}` : '';
  console.log(`| ${row.shape} (${row[a].events_per_query} events) | ${cells.join(' | ')}${ratio} |`);
}
