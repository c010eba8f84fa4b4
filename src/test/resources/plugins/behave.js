#!/usr/bin/env node
// Test plugin for Cairn's PluginTest: what it answers is chosen by a word in the event's content.
//   #reject        reject, msg "no thanks" (no NIP-01 prefix: the relay adds "blocked: ")
//   #restricted    reject, msg "restricted: members only"
//   #reject-empty  reject without a msg
//   #shadow        shadowReject
//   #echo          reject, msg "blocked: " + the request line as received
//   #slow=<ms>     accept after <ms> milliseconds (other events are answered meanwhile)
//   #bogus-action  an answer whose action is not one of the three
//   #crash         exit at once, without answering
//   #stderr        write a line to stderr, then accept
//   anything else  accept
const rl = require('readline').createInterface({ input: process.stdin, terminal: false });

function answer(res) {
  process.stdout.write(JSON.stringify(res) + '\n');
}

rl.on('line', (line) => {
  const req = JSON.parse(line);
  const id = req.event.id;
  const c = req.event.content;
  let m;
  if (c.includes('#reject-empty')) {
    answer({ id, action: 'reject' });
  } else if (c.includes('#reject')) {
    answer({ id, action: 'reject', msg: 'no thanks' });
  } else if (c.includes('#restricted')) {
    answer({ id, action: 'reject', msg: 'restricted: members only' });
  } else if (c.includes('#shadow')) {
    answer({ id, action: 'shadowReject', msg: 'ignored' });
  } else if (c.includes('#echo')) {
    answer({ id, action: 'reject', msg: 'blocked: ' + line });
  } else if ((m = /#slow=(\d+)/.exec(c))) {
    setTimeout(() => answer({ id, action: 'accept' }), Number(m[1]));
  } else if (c.includes('#bogus-action')) {
    answer({ id, action: 'maybe' });
  } else if (c.includes('#crash')) {
    process.exit(3);
  } else if (c.includes('#stderr')) {
    console.error('behave.js was asked about ' + id);
    answer({ id, action: 'accept' });
  } else {
    answer({ id, action: 'accept' });
  }
});
