// A Cairn change-feed consumer: Node 20+, fetch() and a small SSE parser, no dependencies.
//   node sse-client.mjs <feed-url> <cursor-file> [--once]
// e.g. node sse-client.mjs http://127.0.0.1:7777/v1/events cursor.txt
// --once: stop at the first heartbeat (a batch run; the next run goes on from the cursor file).
// Env CAIRN_TOKEN: sent as "Authorization: Bearer <token>". One line per change on stdout.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

const [url, cursorFile, mode] = process.argv.slice(2);
const IDLE_MS = Number(process.env.IDLE_TIMEOUT_MS ?? 60000); // > 3 x sse.heartbeat_interval
let cursor = '';
try { cursor = readFileSync(cursorFile, 'utf8').trim(); } catch { /* no cursor yet */ }
const save = (id) => { cursor = id; writeFileSync(`${cursorFile}.tmp`, id); renameSync(`${cursorFile}.tmp`, cursorFile); };

// Your application: apply one change idempotently (a repeat or a reorder must be harmless).
function apply(type, d) {
  console.log(type === 'stored' ? `stored ${d.seq} ${d.event.id}` : `deleted ${d.seq} ${d.id} ${d.reason}`);
}

// Your application: the stream cannot tell you what you missed; rebuild from a full listing (REQ).
async function resync(reason, cursorAfter) {
  console.error({
    initial_sync: 'no cursor yet: take a full listing if you need the current state',
    seq_too_old: "away longer than the feed's retention: changes were missed, full listing",
    server_restart: 'the feed was recreated (or restored from a backup): full listing',
  }[reason] ?? `reset ${reason}: full listing`);
  console.log(`reset ${reason} ${cursorAfter}`);
}

/** One connection: reads frames until the stream ends; true at a heartbeat with --once. */
async function stream() {
  const idle = new AbortController();
  let timer = setTimeout(() => idle.abort(), IDLE_MS); // a silent connection (no heartbeat) is dead
  try {
    const headers = { Accept: 'text/event-stream' };
    if (cursor) headers['Last-Event-ID'] = cursor;
    if (process.env.CAIRN_TOKEN) headers.Authorization = `Bearer ${process.env.CAIRN_TOKEN}`;
    const res = await fetch(url, { headers, signal: idle.signal });
    if (res.status !== 200) {
      const body = await res.text();
      if (res.status >= 400 && res.status < 500) { console.error(`fatal: HTTP ${res.status} ${body}`); process.exit(1); }
      throw new Error(`HTTP ${res.status} ${body}`);
    }
    connected = true;
    let buf = '', frame = { event: 'message' };
    for await (const text of res.body.pipeThrough(new TextDecoderStream())) {
      clearTimeout(timer);
      timer = setTimeout(() => idle.abort(), IDLE_MS);
      buf += text;
      const end = buf.endsWith('\r') ? buf.length - 1 : buf.length; // "\r" may be half of a "\r\n"
      const lines = buf.slice(0, end).split(/\r\n|\r|\n/);
      buf = lines.pop() + buf.slice(end);
      for (const line of lines) {
        if (line === '') { // a blank line ends a frame
          if (frame.data !== undefined) {
            const d = JSON.parse(frame.data);
            if (frame.event === 'stored' || frame.event === 'deleted') apply(frame.event, d);
            else if (frame.event === 'reset') await resync(d.reason, frame.id);
            if (frame.id) save(frame.id); // after the change is applied: at-least-once, never a gap
            if (frame.event === 'heartbeat' && mode === '--once') return true;
          }
          frame = { event: 'message' };
        } else if (!line.startsWith(':')) { // ":..." is a comment
          const c = line.indexOf(':');
          const name = c < 0 ? line : line.slice(0, c);
          const value = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
          if (name === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
          else if (name === 'id' || name === 'event') frame[name] = value;
        }
      }
    }
    return false;
  } finally {
    clearTimeout(timer);
    idle.abort(); // closes the connection when we stop early
  }
}

let connected = false; // set once the server answered 200: retries then start over at 1 s
for (let backoff = 1000; ; backoff = Math.min(backoff * 2, 30000)) {
  let why = 'stream ended';
  try {
    if (await stream()) break;
  } catch (e) {
    why = `disconnected (${e.cause?.code ?? e.message})`;
  }
  if (connected) { backoff = 1000; connected = false; }
  console.error(`${why}; resuming from ${cursor} in ${backoff} ms`);
  await new Promise((r) => setTimeout(r, backoff));
}
