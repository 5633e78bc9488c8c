import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, HttpResponse } from '../../src/index.ts';

function app(requestIdHeader?: string) {
  const lines: string[] = [];
  const built = createApp({
    env: 'prod',
    debug: false,
    environment: {},
    logFormat: 'json',
    logLevel: 'info',
    logSink: (line) => lines.push(line),
    ...(requestIdHeader === undefined ? {} : { requestIdHeader }),
    routes: [{ name: 'id', path: '/id', controller: (r) => { r.logger.info('app', 'seen'); return HttpResponse.text(r.requestId); } }],
  });
  return { built, lines };
}

const ask = async (a: ReturnType<typeof createApp>, headers: Record<string, string> = {}) => (await a.fetch(new Request('http://localhost/id', { headers }))).text();

test('requestIdHeader: a well-formed id from the named header is the request id, in log lines too', async () => {
  const { built, lines } = app('X-Request-Id');
  assert.equal(await ask(built, { 'x-request-id': 'edge-7f3a:42' }), 'edge-7f3a:42');
  const record = lines.map((l) => JSON.parse(l)).find((r) => r.message === 'seen');
  assert.equal(record.extra.request_id, 'edge-7f3a:42');
});

test('requestIdHeader: a missing, long or odd value gets an id of the process\'s own (nothing to escape reaches a log line)', async () => {
  const { built } = app('x-request-id');
  for (const value of [undefined, 'a'.repeat(129), 'a b', 'x"y', '<script>', 'é']) {
    const id = await ask(built, value === undefined ? {} : { 'x-request-id': value });
    assert.match(id, /^[0-9a-f]{6}-[0-9a-z]+$/, String(value));
  }
});

test('without requestIdHeader the header is not read, as before', async () => {
  const { built } = app();
  assert.match(await ask(built, { 'x-request-id': 'client-chosen' }), /^[0-9a-f]{6}-[0-9a-z]+$/);
});

test('requestIdHeader must be a header name', () => {
  for (const bad of ['', 'x request id', 7]) assert.throws(() => createApp({ requestIdHeader: bad as never }), /createApp option "requestIdHeader" must be a header name/);
});
