// serve()'s close() resolves once what the answers left running has finished: a streamed body's
// cancel() after the client was cut, a kernel.terminate begun while closing. SIGTERM exits right after it.
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';
import { createApp, HttpResponse, listener } from '../../src/index.ts';
import { eventStreamApp } from '../support/event-stream-app.ts';
import { serve } from '../../src/runtime/node.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('regression: close() resolved before an open event stream it cut was cancelled, so on SIGTERM the process exited without running the stream\'s cancel() (the app\'s cleanup)', async () => {
  let cleaned = false;
  // Cleanup that takes a moment (an unsubscribe from a broker).
  const app = eventStreamApp({ cancel: () => sleep(30).then(() => void (cleaned = true)) });
  const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
  await new Promise<void>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: server.port, path: '/events' }, (res) => res.once('data', () => resolve()));
    req.on('error', () => undefined);
    setTimeout(() => reject(new Error('no first event')), 3000);
  });
  await server.close(100);
  assert.equal(cleaned, true, 'the stream was cancelled, its cleanup done, before close() resolved');
});

test('regression: close() resolved before the kernel.terminate of a request answered while closing had run (the profile or the app\'s own terminate work was cut by the exit)', async () => {
  const terminated: string[] = [];
  const app = createApp({
    env: 'prod',
    debug: false,
    environment: {},
    logSink: () => {},
    routes: [{ name: 'slow', path: '/slow', controller: () => sleep(100).then(() => HttpResponse.text('done')) }],
    listeners: [{ hook: 'kernel.terminate', listener: listener<'kernel.terminate'>('App::flush', 'flushes', async () => { await sleep(50); terminated.push('flushed'); }) }],
  });
  const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
  const answer = new Promise<string>((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: server.port, path: '/slow' }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
  await sleep(30);
  await server.close(2000);
  assert.equal(await answer, 'done', 'the in-flight request was answered');
  assert.deepEqual(terminated, ['flushed']);
});

test('regression: close() resolved before the kernel.terminate of an answer it cut at its deadline had run (the exit cut the app\'s terminate work)', async () => {
  const terminated: string[] = [];
  const app = eventStreamApp({ listeners: [{ hook: 'kernel.terminate', listener: listener<'kernel.terminate'>('App::flush', 'flushes', async () => { await sleep(30); terminated.push('flushed'); }) }] });
  const server = await serve(app, { port: 0, hostname: '127.0.0.1', handleSignals: false });
  await new Promise<void>((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: server.port, path: '/events' }, (res) => res.once('data', () => resolve()));
    req.on('error', () => undefined);
    setTimeout(() => reject(new Error('no first event')), 3000).unref();
  });
  await server.close(20);
  assert.deepEqual(terminated, ['flushed']);
});
