// serve()'s close() waits for the cancel() of the streams it cut, but only so long: it resolves even when
// one never settles. Alone in its file: a timer another test leaves would keep the process alive.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { eventStreamApp } from '../support/event-stream-app.ts';
import { serve } from '../../src/runtime/node.ts';

test('regression: close() never resolved, and the process ended in the middle of its shutdown, when a stream it cut had a cancel() that never settles (it must give up after its 1 s bound)', async () => {
  // An unsubscribe from a broker that never answers: nothing keeps the process alive meanwhile.
  const app = eventStreamApp({ cancel: () => new Promise<void>(() => undefined) });
  const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
  await new Promise<void>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: server.port, path: '/events' }, (res) => res.once('data', () => resolve()));
    req.on('error', () => undefined);
    setTimeout(() => reject(new Error('no first event')), 3000).unref();
  });
  let closed = false;
  await server.close(20).then(() => void (closed = true));
  assert.equal(closed, true);
});
