/**
 * What a profile records is what happened (CONTRACT §6.2; symfony-reference.md §12.2): the profile's
 * metadata, checked against the request as a client and a host see it.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { serve } from '../../src/runtime/node.ts';
import { HttpResponse } from '../../src/index.ts';
import { get, profiledApp, profileOf } from './support.ts';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('profile metadata', () => {
  const closers: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const close of closers.splice(0)) await close();
  });

  test('regression: a streamed response\'s profile was dated when its stream ended (kernel.terminate), not when the request was answered (Profiler::collect at kernel.response)', async () => {
    const STREAM_MS = 1500;
    const app = profiledApp({
      routes: [
        {
          name: 'feed',
          path: '/feed',
          controller: function feed() {
            const encoder = new TextEncoder();
            const body = new ReadableStream<Uint8Array>({
              async start(controller) {
                controller.enqueue(encoder.encode('data: first\n\n'));
                await sleep(STREAM_MS);
                controller.enqueue(encoder.encode('data: last\n\n'));
                controller.close();
              },
            });
            return HttpResponse.stream(body, 200, { 'content-type': 'text/event-stream' });
          },
        },
      ],
    });
    const server = await serve(app, { port: 0, hostname: '127.0.0.1' });
    closers.push(() => server.close());

    const sent = Date.now();
    const response = await fetch(`http://127.0.0.1:${server.port}/feed`);
    const answered = Date.now();
    const token = response.headers.get('x-debug-token');
    assert.match(token ?? '', /^[0-9a-f]{6}$/);
    await response.text();
    const profile = await app.services.profiler!.load(token!, 3000);
    assert.ok(profile, 'the profile is stored once the stream is over');
    const at = Date.parse(profile.datetime);
    assert.ok(at >= sent - 5 && at <= answered + 5, `profiled on ${profile.datetime}: between the request (${new Date(sent).toISOString()}) and its answer (${new Date(answered).toISOString()}), not ${at - answered} ms after`);
    assert.ok(profile.time <= Math.floor(answered / 1000), 'the unix time too');
    // The date range search finds it by the time the request was made.
    const found = await app.services.profiler!.find({ end: Math.floor(answered / 1000) });
    assert.ok(found.some((s) => s.token === token), 'found by a search ending when the request was answered');
  });
});

test('regression: a request no firewall covers (`_firewall` is \'\') was recorded with the firewall \'\', a blank Firewall on the Security panel; it has none (null, shown as "none")', async () => {
  const app = profiledApp({
    firewalls: [{ name: 'api', pattern: '^/api' }],
    routes: [
      { name: 'open', path: '/open', controller: () => HttpResponse.html('<html><body>open</body></html>') },
      { name: 'api', path: '/api/ping', controller: () => HttpResponse.json({ ok: true }) },
    ],
  });
  const open = await profileOf(app, await get(app, '/open'));
  assert.equal(open.request.attributes._firewall, '', 'the request attribute stays as the firewall listener set it');
  assert.equal(open.security.firewall, null);
  const panel = await (await get(app, `/_profiler/${open.token}?panel=security`)).text();
  assert.match(panel, /<span>Firewall<\/span><b class="pf-mono">none<\/b>/);
  const api = await profileOf(app, await get(app, '/api/ping'));
  assert.equal(api.security.firewall, 'api', 'a covered request keeps its firewall');
});

test('regression: a response Fetch refused (a 1xx status, a body stream already locked) reached the client as the plain 500, but its profile said 103 or 200', async () => {
  const app = profiledApp({
    routes: [
      { name: 'early_hints', path: '/early-hints', controller: () => new HttpResponse('', 103) },
      {
        name: 'locked',
        path: '/locked',
        controller: () => {
          const stream = new ReadableStream<Uint8Array>({ start: (c) => c.close() });
          stream.getReader(); // the application read it already: Fetch refuses a locked body
          return new HttpResponse(stream, 200);
        },
      },
    ],
  });
  for (const path of ['/early-hints', '/locked']) {
    const response = await get(app, path);
    assert.equal(response.status, 500, path);
    let stored: { url: string; status: number } | undefined;
    for (let waited = 0; waited < 2000 && stored?.url.endsWith(path) !== true; waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      stored = (await app.services.profiler!.find({ limit: 1 }))[0];
    }
    assert.ok(stored?.url.endsWith(path), `${path} was profiled`);
    assert.equal(stored!.status, 500, `${path}: the profile says what the client got`);
  }
});
