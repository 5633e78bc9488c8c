// A long-running server forgets the streamed answers its clients left: nothing it keeps for shutdown
// (close() waits for the cancel() of the streams it cuts) holds them once they are over.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import v8 from 'node:v8';
import vm from 'node:vm';
import { eventStreamApp } from '../support/event-stream-app.ts';
import { serve } from '../../src/runtime/node.ts';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** Reads the first event of /events, then leaves (the client closes the connection mid-stream). */
function readFirstEventAndLeave(port: number): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path: '/events', agent: false }, (res) => {
      res.once('data', () => {
        res.once('close', () => resolve());
        req.destroy();
      });
    });
    req.on('error', () => undefined);
    req.on('close', () => resolve());
    setTimeout(() => reject(new Error('no first event')), 5000).unref();
  });
}

test('regression: every event stream a client left whose cancel() never settles stayed in memory for the life of the server (a long-running server grew with each one)', async () => {
  const streams: WeakRef<ReadableStream<Uint8Array>>[] = [];
  // An unsubscribe from a broker that never answers.
  const app = eventStreamApp({ cancel: () => new Promise<void>(() => undefined), onStream: (stream) => void streams.push(new WeakRef(stream)) });
  const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
  try {
    for (let i = 0; i < 20; i++) await readFirstEventAndLeave(server.port);
    // The server sees each client leave a moment after it has gone.
    for (let round = 0; round < 50 && streams.some((s) => s.deref() !== undefined); round++) {
      await new Promise((resolve) => setImmediate(resolve));
      gc();
    }
    assert.equal(streams.length, 20);
    assert.equal(streams.filter((s) => s.deref() !== undefined).length, 0, 'the streams of the answers over are collected');
  } finally {
    await server.close(0);
  }
});
