import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, signMemberToken, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from './harness.ts';

const routes: RouteDefinition[] = [
  { name: 'ok', path: '/ok', methods: ['GET'], controller: () => HttpResponse.text('ok') },
  { name: 'own_tag', path: '/own-tag', controller: () => HttpResponse.text('ok', 200, { 'x-robots-tag': 'all' }) },
  { name: 'member', path: '/member', controller: () => HttpResponse.text('secret'), options: { requiresLogin: true } },
  { name: 'admin', path: '/admin-only', controller: () => HttpResponse.text('x'), options: { isGranted: 'ROLE_ADMIN' } },
  { name: 'cached', path: '/cached', controller: () => HttpResponse.text('c'), options: { cache: { etag: 'v1' } } },
  { name: 'boom', path: '/boom', controller: () => { throw new Error('boom'); } },
  { name: 'echo', path: '/echo', methods: ['POST'], controller: (r) => HttpResponse.json(r.request.all()) },
];

for (const mode of ['debug', 'prod'] as const) {
  test(`every response carries X-Robots-Tag: noindex (${mode}), errors and redirects included`, async () => {
    const { app } = testApp({ routes, bodyLimit: 64, ...(mode === 'prod' ? { env: 'prod', debug: false } : {}) });
    const token = await signMemberToken(app, { memberId: '7' });
    const cases: [string, RequestInit, number][] = [
      ['/ok', {}, 200],
      ['/nowhere', {}, 404],
      ['/ok/', {}, 301],
      ['/ok', { method: 'POST' }, 405],
      ['/ok', { headers: { host: 'a b' } }, 400],
      ['/nowhere', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{bad' }, 400],
      ['/echo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 'x'.repeat(100) }) }, 413],
      ['/member', {}, 401],
      ['/admin-only', { headers: { authorization: `Bearer ${token}` } }, 403],
      ['/cached', { headers: { 'if-none-match': '"v1"' } }, 304],
      ['/boom', {}, 500],
      ['/ok', { method: 'HEAD' }, 200],
    ];
    if (mode === 'debug') cases.push(['/_profiler/abc123', {}, 200], ['/', {}, 404]);
    for (const [path, init, status] of cases) {
      const r = await send(app, path, init);
      assert.equal(r.status, status, `${init.method ?? 'GET'} ${path}`);
      assert.equal(r.headers.get('x-robots-tag'), 'noindex', `${init.method ?? 'GET'} ${path} → ${status}`);
      await r.body?.cancel();
    }
  });
}

test('an X-Robots-Tag the app set is kept; the listener can be switched off', async () => {
  const { app } = testApp({ routes });
  assert.equal((await send(app, '/own-tag')).headers.get('x-robots-tag'), 'all');
  const { app: off } = testApp({ routes, disallowRobotsIndexing: false });
  assert.equal((await send(off, '/ok')).headers.get('x-robots-tag'), null);
});
