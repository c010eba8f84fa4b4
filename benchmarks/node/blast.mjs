// A second client for the ingest figures, in another language and WebSocket library (Node, `ws`) than
// the Java load tools: sends N pre-signed events (one JSON event per line, as GenerateEvents writes
// them) over C connections at once, without waiting for OKs (no window: whatever the relay does not
// read waits in the sockets), then waits for every OK. Prints the time to the last OK, the OKs by
// result, and close codes. Exit status 1 when an OK is missing after 120 s.
//
//   cd benchmarks/node && npm install && node blast.mjs ws://127.0.0.1:PORT EVENTS.jsonl N C
import WebSocket from 'ws';
import fs from 'fs';

const [url, file, n, conns] = [process.argv[2], process.argv[3], Number(process.argv[4]), Number(process.argv[5])];
if (!url || !file || !(n > 0) || !(conns > 0)) {
  console.error('usage: node blast.mjs ws://HOST:PORT EVENTS.jsonl N CONNECTIONS');
  process.exit(2);
}
const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(0, n);
let oks = 0;
let accepted = 0;
const refused = new Map();
const started = Date.now();
const sockets = [];
for (let c = 0; c < conns; c++) {
  const ws = new WebSocket(url);
  sockets.push(ws);
  await new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject); });
  ws.on('message', data => {
    const m = JSON.parse(data);
    if (m[0] !== 'OK') return;
    oks++;
    if (m[2]) {
      accepted++;
    } else {
      const prefix = String(m[3]).split(':')[0];
      refused.set(prefix, (refused.get(prefix) || 0) + 1);
    }
  });
  ws.on('close', (code, reason) => {
    if (oks < lines.length) console.log(`connection ${c} closed early: ${code} ${reason}`);
  });
}
for (let i = 0; i < lines.length; i++) sockets[i % conns].send('["EVENT",' + lines[i] + ']');
const handedOver = Date.now();
while (oks < lines.length && Date.now() - handedOver < 120_000) await new Promise(r => setTimeout(r, 50));
const seconds = (Date.now() - started) / 1000;
console.log(`${lines.length} events on ${conns} connections: ${oks} OKs (${accepted} accepted`
  + `${[...refused].map(([k, v]) => `, ${v} ${k}`).join('')}) in ${seconds.toFixed(2)} s,`
  + ` ${Math.round(oks / seconds)} OKs/s`);
sockets.forEach(s => s.close());
process.exitCode = oks === lines.length ? 0 : 1;
