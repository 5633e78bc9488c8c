import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { createApp, HttpResponse } from '../../src/index.ts';
import { serve, type NodeServer } from '../../src/runtime/node.ts';

let server: NodeServer;

before(async () => {
  const app = createApp({
    env: 'prod',
    environment: { BODY_LIMIT: '1kb' },
    logSink: () => {},
    routes: [{ name: 'echo', path: '/echo', methods: ['POST'], controller: (request) => HttpResponse.json(request.request.all()) }],
  });
  server = await serve(app, { port: 0, handleSignals: false });
});

after(() => server.close(1000));

/** Sends the head only, waits, then (if told) the body; returns everything the server wrote. */
function exchange(head: string, body: string | null, waitMs = 300): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let received = '';
    socket.on('data', (c) => {
      received += c.toString('latin1');
      if (body !== null && received.startsWith('HTTP/1.1 100 Continue\r\n\r\n') && !socket.writableEnded) socket.end(body);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(head);
    setTimeout(() => {
      if (!received && body === null) socket.end();
    }, waitMs);
    setTimeout(() => socket.destroy(), 5000).unref();
  });
}

test('Expect: 100-continue with a Content-Length over BODY_LIMIT gets 413 and no 100 Continue', async () => {
  const out = await exchange('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n', null);
  assert.doesNotMatch(out, /100 Continue/);
  assert.match(out, /^HTTP\/1\.1 413 /);
});

test('Expect: 100-continue with an acceptable body gets 100 Continue, then the answer', async () => {
  const out = await exchange('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n', '{"a":"b"}');
  assert.match(out, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
  assert.ok(out.endsWith('{"a":"b"}'), out);
});

test('regression: an Expect other than 100-continue got a bare 417 from Node (no X-Robots-Tag, the app never ran); it is ignored, as nginx and Deno do', async () => {
  for (const expect of ['foo', '100-continu']) {
    const out = await exchange(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 9\r\nExpect: ${expect}\r\nConnection: close\r\n\r\n{"a":"b"}`, null, 1000);
    assert.match(out, /^HTTP\/1\.1 200 OK\r\n/, `Expect: ${expect}: ${out}`);
    assert.match(out, /\r\nx-robots-tag: noindex\r\n/i, out);
    assert.ok(out.endsWith('{"a":"b"}'), out);
  }
});
