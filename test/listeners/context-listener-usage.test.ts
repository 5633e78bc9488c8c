import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, HttpResponse, MemorySessionStore } from '../../src/index.ts';

test('regression: a controller that only called getSession() had its page answered private for an anonymous visitor without a cookie (the ContextListener looked for a token to forget; Symfony looks only when the request had a session)', async () => {
  const app = createApp({
    env: 'prod',
    environment: {},
    logSink: () => {},
    sessionStore: new MemorySessionStore(),
    routes: [
      { name: 'p', path: '/p', options: { cache: { public: true, maxAge: 600 } }, controller: (r) => { r.getSession(); return HttpResponse.html('<p>x</p>'); } },
      { name: 'used', path: '/used', options: { cache: { public: true, maxAge: 600 } }, controller: (r) => { r.getSession().set('seen', true); return HttpResponse.html('<p>y</p>'); } },
    ],
  });
  const page = await app.fetch(new Request('http://localhost/p'));
  assert.equal(page.headers.get('cache-control'), 'max-age=600, public');
  assert.equal(page.headers.get('set-cookie'), null);
  // A session really used still makes the page private (AbstractSessionListener).
  const used = await app.fetch(new Request('http://localhost/used'));
  assert.equal(used.headers.get('cache-control'), 'max-age=0, must-revalidate, private');
});
