#!/usr/bin/env node
// Test plugin: answers every request with lines that are not answers (and never a real one).
const rl = require('readline').createInterface({ input: process.stdin, terminal: false });
rl.on('line', (line) => {
  const req = JSON.parse(line);
  process.stdout.write('this is not json\n');
  process.stdout.write('[1, 2, 3]\n');
  process.stdout.write(JSON.stringify({ action: 'accept', note: 'no id' }) + '\n');
  process.stdout.write('{"id": "' + req.event.id + '", "action": "acc\n');
});
