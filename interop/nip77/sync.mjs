// One NIP-77 sync with nostr-tools' own client (NegentropySync over its Relay) against a relay.
// Usage: node sync.mjs <ws-url> <input.json>
//   input: {"filter": {...}, "items": [{"id": "<hex>", "created_at": <n>}, ...]}
// Prints one JSON line: {"have": [ids only the client has], "need": [ids only the relay has],
// "error": null | "<NEG-ERR reason>", "rounds": <NEG-MSG frames received>, "ms": <sync time>}.
import { readFileSync } from 'node:fs'
import WebSocket from 'ws'
import { Relay, useWebSocketImplementation } from 'nostr-tools/relay'
// nostr-tools 2.25.2 ships nip77 but does not list it in its package exports: import the file itself.
import { NegentropyStorageVector, NegentropySync } from './node_modules/nostr-tools/lib/esm/nip77.js'

useWebSocketImplementation(WebSocket)

// a relay that stops answering must not hang the test that runs this
setTimeout(() => {
  process.stdout.write(JSON.stringify({ error: 'no end of sync within 30 s' }) + '\n', () => process.exit(2))
}, 30_000).unref()

const [url, inputFile] = process.argv.slice(2)
const input = JSON.parse(readFileSync(inputFile, 'utf8'))

const storage = new NegentropyStorageVector()
for (const item of input.items) storage.insert(item.created_at, item.id)
storage.seal()

const relay = await Relay.connect(url)
const have = new Set()
const need = new Set()
let error = null
let rounds = 0
const started = Date.now()

await new Promise((resolve) => {
  const sync = new NegentropySync(relay, storage, input.filter, {
    onhave: (id) => have.add(id),
    onneed: (id) => need.add(id),
    onclose: (reason) => {
      if (reason && !error) error = reason
      resolve()
    },
  })
  // NegentropySync reports a NEG-ERR with no reason: keep the relay's
  const handle = sync.subscription.oncustom
  sync.subscription.oncustom = (data) => {
    if (data[0] === 'NEG-ERR') error = String(data[2])
    if (data[0] === 'NEG-MSG') rounds++
    handle(data)
  }
  sync.start()
})

const ms = Date.now() - started
relay.close()
// exit once written: process.exit() right after write() can cut a large output to a pipe short
process.stdout.write(JSON.stringify({ have: [...have], need: [...need], error, rounds, ms }) + '\n', () => process.exit(0))
