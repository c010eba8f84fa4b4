// Publishes signed test events to a Cairn relay over WebSocket and waits for every OK.
//   npm install                        (once, in docs/examples: nostr-tools)
//   node --experimental-websocket publish.mjs ws://127.0.0.1:7777 [count] [--changes]
// Node 22+ has WebSocket built in (no flag needed). --changes then replaces a profile (kind 0) and
// deletes the first note (NIP-09 kind 5): the feed shows `deleted` frames, reasons "replaced" and "nip09".
import { finalizeEvent, generateSecretKey } from 'nostr-tools/pure';

const [url = 'ws://127.0.0.1:7777', count = '10', flag] = process.argv.slice(2);
const sk = generateSecretKey();
const now = Math.floor(Date.now() / 1000);
const sign = (kind, content, tags = [], at = now) => finalizeEvent({ kind, created_at: at, tags, content }, sk);

const ws = new WebSocket(url);
const waiting = new Map(); // event id -> resolve(ok)
ws.onmessage = (m) => {
  const [verb, id, ok, msg] = JSON.parse(m.data);
  if (verb === 'OK' && waiting.has(id)) {
    if (!ok) console.error(`refused ${id}: ${msg}`);
    waiting.get(id)(ok);
    waiting.delete(id);
  }
};
ws.onerror = (e) => { console.error('websocket error:', e.message ?? e.type); process.exit(1); };
const publish = (events) => Promise.all(events.map((e) => new Promise((resolve) => {
  waiting.set(e.id, resolve);
  ws.send(JSON.stringify(['EVENT', e]));
})));

ws.onopen = async () => {
  const notes = Array.from({ length: Number(count) }, (_, i) => sign(1, `note ${i} at ${now}`));
  let results = await publish(notes);
  if (flag === '--changes') {
    results = results.concat(await publish([sign(0, '{"name":"v1"}', [], now - 10)]));
    results = results.concat(await publish([sign(0, '{"name":"v2"}')]));
    results = results.concat(await publish([sign(5, 'deleted by its author', [['e', notes[0].id]])]));
  }
  const accepted = results.filter(Boolean).length;
  console.log(`accepted ${accepted}, refused ${results.length - accepted}`);
  ws.close();
};
