#!/usr/bin/env node
// Test plugin for reloads: rejects every event with "blocked: version <VERSION> pid <pid>".
// PluginReloadTest rewrites VERSION in a copy of this file while the relay runs.
const VERSION = 1;
const rl = require('readline').createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  const req = JSON.parse(line);
  console.log(JSON.stringify({ id: req.event.id, action: 'reject', msg: `blocked: version ${VERSION} pid ${process.pid}` }));
});
