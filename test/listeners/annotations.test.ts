import assert from 'node:assert/strict';
import { test } from 'node:test';
import he from 'he';
import { HttpResponse, signMemberToken, type KernelRequest, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

let controllerCalls = 0;
const MODIFIED = new Date('2026-01-02T03:04:05Z');

const routes: RouteDefinition[] = [
  {
    name: 'etag',
    path: '/etag',
    controller: () => { controllerCalls++; return HttpResponse.text('fresh'); },
    options: { cache: { etag: 'v1', maxAge: 60, public: true, vary: 'Accept-Language' } },
  },
  {
    name: 'last_modified',
    path: '/last-modified',
    controller: () => { controllerCalls++; return HttpResponse.text('fresh'); },
    options: { cache: { lastModified: async () => MODIFIED, sMaxAge: 300 } },
  },
  { name: 'both_validators', path: '/both', controller: () => HttpResponse.text('fresh'), options: { cache: { etag: 'v1', lastModified: MODIFIED } } },
  { name: 'cache_private', path: '/private', controller: () => HttpResponse.text('p'), options: { cache: { maxAge: 30 } } },
  { name: 'page', path: '/page/:name', controller: (r: KernelRequest) => ({ name: r.attributes.get('name') }), options: { template: 'page.html' } },
  { name: 'inline', path: '/inline', controller: () => null, options: { template: (data: Record<string, unknown>) => `<p>${Object.keys(data).length}</p>` } },
  {
    name: 'member_show',
    path: '/members/:id/:since',
    controller: (r: KernelRequest) => HttpResponse.json({ id: r.attributes.get('id'), since: (r.attributes.get('since') as Date).toISOString() }),
    options: { converters: { id: 'int', since: 'date' } },
  },
  {
    name: 'resolved',
    path: '/things/:thing',
    controller: (r: KernelRequest) => HttpResponse.json(r.attributes.get('thing')),
    options: { converters: { thing: async (value: unknown) => (value === 'known' ? { name: 'Known thing' } : null) } },
  },
  {
    name: 'secure',
    path: '/secure/:owner',
    controller: () => HttpResponse.text('allowed'),
    options: { security: ({ member, params }: { member: { memberId: string } | null; params: Record<string, unknown> }) => member !== null && member.memberId === params.owner },
  },
  { name: 'granted', path: '/granted', controller: () => HttpResponse.text('admin area'), options: { isGranted: 'ROLE_ADMIN' } },
  { name: 'granted_any', path: '/granted-any', controller: () => HttpResponse.text('ok'), options: { isGranted: ['ROLE_ADMIN', 'ROLE_EDITOR'] } },
  { name: 'annotated', path: '/annotated', controller: (r: KernelRequest) => HttpResponse.json({ cache: r.attributes.get('_cache'), isGranted: r.attributes.get('_is_granted'), stateless: r.attributes.get('_stateless') }), options: { cache: { maxAge: 5 }, isGranted: 'PUBLIC_ACCESS', stateless: true } },
];

function setup() {
  return testApp({
    routes,
    renderTemplate: (name, data) => `<!DOCTYPE html><html><body><h1>${he.escape(name)}</h1><p>${he.escape(String(data.name))}</p></body></html>`,
  });
}

test('cache option: ETag → 304 Not Modified without running the controller', async () => {
  const { app } = setup();
  controllerCalls = 0;
  const fresh = await send(app, '/etag');
  assert.equal(fresh.status, 200);
  assert.equal(fresh.headers.get('etag'), '"v1"');
  assert.equal(fresh.headers.get('cache-control'), 'max-age=60, public');
  assert.equal(fresh.headers.get('vary'), 'Accept-Language');
  assert.equal(controllerCalls, 1);
  for (const inm of ['"v1"', 'W/"v1"', '"other", "v1"', '*']) {
    const r = await send(app, '/etag', { headers: { 'if-none-match': inm } });
    assert.equal(r.status, 304, inm);
    assert.equal(await r.text(), '');
    assert.equal(r.headers.get('etag'), '"v1"');
    assert.equal(r.headers.get('content-type'), null);
  }
  assert.equal(controllerCalls, 1, 'the controller did not run for the 304s');
  assert.equal((await send(app, '/etag', { headers: { 'if-none-match': '"v0"' } })).status, 200);
  assert.equal((await send(app, '/etag', { method: 'POST', headers: { 'if-none-match': '"v1"' } })).status, 200, 'only GET/HEAD are conditional');
  assert.equal((await send(app, '/etag', { method: 'HEAD', headers: { 'if-none-match': '"v1"' } })).status, 304);
});

test('cache option: Last-Modified (async) → 304 for If-Modified-Since; s-maxage makes the response public (setSharedMaxAge)', async () => {
  const { app } = setup();
  const fresh = await send(app, '/last-modified');
  assert.equal(fresh.headers.get('last-modified'), MODIFIED.toUTCString());
  assert.equal(fresh.headers.get('cache-control'), 'public, s-maxage=300');
  assert.equal((await send(app, '/last-modified', { headers: { 'if-modified-since': MODIFIED.toUTCString() } })).status, 304);
  assert.equal((await send(app, '/last-modified', { headers: { 'if-modified-since': new Date(MODIFIED.getTime() - 1000).toUTCString() } })).status, 200);
  const priv = await send(app, '/private');
  assert.equal(priv.headers.get('cache-control'), 'max-age=30, private');
});

test('regression: a matching If-None-Match was overridden by an older If-Modified-Since (the tags decide when both are sent)', async () => {
  const { app } = setup();
  const older = new Date(MODIFIED.getTime() - 86_400_000).toUTCString();
  const cases: [Record<string, string>, number][] = [
    [{ 'if-none-match': '"v1"', 'if-modified-since': older }, 304],
    [{ 'if-none-match': '"v0"', 'if-modified-since': MODIFIED.toUTCString() }, 200],
    [{ 'if-modified-since': MODIFIED.toUTCString() }, 304],
    [{ 'if-modified-since': older }, 200],
    [{ 'if-none-match': ' , ', 'if-modified-since': MODIFIED.toUTCString() }, 304],
  ];
  for (const [headers, status] of cases) assert.equal((await send(app, '/both', { headers })).status, status, JSON.stringify(headers));
  // No ETag on the response: If-Modified-Since decides even beside an If-None-Match, as in Symfony.
  assert.equal((await send(app, '/last-modified', { headers: { 'if-none-match': '"v1"', 'if-modified-since': MODIFIED.toUTCString() } })).status, 304);
});

test('template option: the controller returns data, the template renders HTML (escaped by the renderer)', async () => {
  const { app } = setup();
  const r = await send(app, '/page/%3Cb%3E');
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'text/html; charset=UTF-8');
  // (debug mode: the toolbar is injected before </body>)
  assert.match(await r.text(), /^<!DOCTYPE html><html><body><h1>page\.html<\/h1><p>&lt;b&gt;<\/p>[\s\S]*<\/body><\/html>$/);
  const inline = await send(app, '/inline');
  assert.equal(await inline.text(), '<p>0</p>');
  const head = await send(app, '/page/x', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), '');
});

test('a template route without a renderer is a clear 500', async () => {
  const { app } = testApp({ routes });
  const r = await send(app, '/page/x', { headers: { accept: 'application/json' } });
  assert.equal(r.status, 500);
  assert.match((await r.json()).detail, /no template renderer/);
});

test('converters option: typed parameters; a value that cannot be converted is a 404', async () => {
  const { app } = setup();
  const ok = await send(app, '/members/42/2026-03-04');
  assert.deepEqual(await ok.json(), { id: 42, since: '2026-03-04T00:00:00.000Z' });
  for (const path of ['/members/abc/2026-03-04', '/members/1.5/2026-03-04', '/members/42/not-a-date', '/members/42/2026-13-45']) {
    const r = await send(app, path, { headers: { accept: 'application/json' } });
    assert.equal(r.status, 404, path);
  }
  assert.match((await (await send(app, '/members/abc/2026-03-04', { headers: { accept: 'application/json' } })).json()).detail, /Invalid integer given for parameter "id"\./);
  assert.deepEqual(await (await send(app, '/things/known')).json(), { name: 'Known thing' });
  const missing = await send(app, '/things/unknown', { headers: { accept: 'application/json' } });
  assert.equal(missing.status, 404);
  assert.equal((await missing.json()).detail, '"thing" object not found by the "converters" route option.');
});

test('security option: 401 for anonymous requests, 403 for members the predicate refuses', async () => {
  const { app } = setup();
  const alice = await signMemberToken(app, { memberId: 'alice' });
  assert.equal((await send(app, '/secure/alice')).status, 401);
  assert.equal((await send(app, '/secure/alice', { method: 'HEAD' })).status, 401);
  assert.equal((await send(app, '/secure/bob', { headers: { authorization: `Bearer ${alice}` } })).status, 403);
  const allowed = await send(app, '/secure/alice', { headers: { authorization: `Bearer ${alice}` } });
  assert.equal(allowed.status, 200);
  assert.equal(await allowed.text(), 'allowed');
});

test('isGranted option: roles of the member; 403 without the role, 401 when anonymous', async () => {
  const { app } = setup();
  const user = await signMemberToken(app, { memberId: 'u', roles: ['ROLE_USER'] });
  const admin = await signMemberToken(app, { memberId: 'a', roles: ['ROLE_ADMIN'] });
  const editor = await signMemberToken(app, { memberId: 'e', roles: ['ROLE_EDITOR'] });
  assert.equal((await send(app, '/granted')).status, 401);
  const denied = await send(app, '/granted', { headers: { authorization: `Bearer ${user}`, accept: 'application/json' } });
  assert.equal(denied.status, 403);
  assert.equal((await denied.json()).detail, 'Access Denied by controller annotation @IsGranted("ROLE_ADMIN")');
  assert.equal((await send(app, '/granted', { headers: { authorization: `Bearer ${admin}` } })).status, 200);
  assert.equal((await send(app, '/granted-any', { headers: { authorization: `Bearer ${editor}` } })).status, 200);
});

test('ControllerListener copies the route options into request attributes', async () => {
  const { app } = setup();
  assert.deepEqual(await (await send(app, '/annotated')).json(), { cache: { maxAge: 5 }, isGranted: 'PUBLIC_ACCESS', stateless: true });
});

test('regression: a session-using response with the cache option sMaxAge stayed browser-cacheable for the shared age (s-maxage did not make it public, so the session took it as max-age)', async () => {
  const { app } = testApp({
    routes: [
      {
        name: 'shared',
        path: '/shared',
        controller: (request) => {
          request.getSession().set('seen', true);
          return HttpResponse.text('personal');
        },
        options: { cache: { sMaxAge: 600 } },
      },
    ],
  });
  const r = await send(app, '/shared');
  assert.equal(r.headers.get('cache-control'), 'max-age=0, must-revalidate, private, s-maxage=600');
  assert.ok(Math.abs(Date.parse(r.headers.get('expires')!) - Date.now()) < 2000, 'Expires: now');
});

test('regression: an async converter or etag rejecting beside one that throws left an unhandled rejection (it ended a Node server)', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const { app } = testApp({
      routes: [
        { name: 'rej', path: '/rej/:x/:id', controller: () => HttpResponse.text('ok'), options: { converters: { x: async () => { throw new Error('db down'); }, id: 'int' } } },
        { name: 'null', path: '/null/:x/:id', controller: () => HttpResponse.text('ok'), options: { converters: { x: async () => null, id: 'int' } } },
        {
          name: 'cached',
          path: '/cached',
          controller: () => HttpResponse.text('ok'),
          options: { cache: { etag: async () => { throw new Error('etag down'); }, lastModified: () => { throw new Error('clock down'); } } },
        },
      ],
    });
    assert.equal((await send(app, '/rej/a/zz')).status, 404);
    assert.equal((await send(app, '/null/a/zz')).status, 404);
    assert.equal((await send(app, '/cached')).status, 500);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});

test('regression: a 304 from the cache option carried Last-Modified; Response::setNotModified drops it and keeps the ETag', async () => {
  const { app } = testApp({
    routes: [{ name: 'both', path: '/both', controller: () => HttpResponse.text('fresh'), options: { cache: { etag: 'v1', lastModified: MODIFIED, maxAge: 60 } } }],
  });
  const fresh = await send(app, '/both');
  assert.equal(fresh.headers.get('last-modified'), MODIFIED.toUTCString());
  for (const headers of [{ 'if-none-match': '"v1"' }, { 'if-modified-since': MODIFIED.toUTCString() }] as Record<string, string>[]) {
    const r = await send(app, '/both', { headers });
    assert.equal(r.status, 304, JSON.stringify(headers));
    assert.equal(r.headers.get('last-modified'), null, JSON.stringify(headers));
    assert.equal(r.headers.get('etag'), '"v1"');
  }
});

test('regression: a date converter answered 404 for a route default that was already a Date, and read a date-time without an offset in the host\'s time zone', async () => {
  const { app } = testApp({
    routes: [
      {
        name: 'since',
        path: '/since{/:since}',
        defaults: { since: new Date('2026-01-01T00:00:00Z') },
        controller: (request) => HttpResponse.json({ since: (request.attributes.get('since') as Date).toISOString() }),
        options: { converters: { since: 'date' } },
      },
      { name: 'n', path: '/n/:n', defaults: {}, controller: (request) => HttpResponse.json({ n: request.attributes.get('n') }), options: { converters: { n: 'int' } } },
    ],
  });
  assert.deepEqual(await (await send(app, '/since')).json(), { since: '2026-01-01T00:00:00.000Z' });
  for (const [path, iso] of [
    ['/since/2026-01-02', '2026-01-02T00:00:00.000Z'],
    ['/since/2026-01-02T10:00', '2026-01-02T10:00:00.000Z'],
    ['/since/2026-01-02%2010:00:30', '2026-01-02T10:00:30.000Z'],
    ['/since/2026-01-02T10:00:00%2B02:00', '2026-01-02T08:00:00.000Z'],
  ]) {
    assert.deepEqual(await (await send(app, path)).json(), { since: iso }, path);
  }
  assert.deepEqual(await (await send(app, '/n/7')).json(), { n: 7 });
});

test('regression: the cache option\'s 304 for a lastModified route sent `no-cache, private`; Sensio\'s Response had Last-Modified when Cache-Control was computed, so it keeps `private, must-revalidate`', async () => {
  const { app } = testApp({
    routes: [
      { name: 'dated', path: '/dated', controller: () => HttpResponse.text('fresh'), options: { cache: { lastModified: MODIFIED } } },
      { name: 'tagged', path: '/tagged', controller: () => HttpResponse.text('fresh'), options: { cache: { etag: 'v1' } } },
    ],
  });
  const dated = await send(app, '/dated', { headers: { 'if-modified-since': MODIFIED.toUTCString() } });
  assert.equal(dated.status, 304);
  assert.equal(dated.headers.get('last-modified'), null);
  assert.equal(dated.headers.get('cache-control'), 'private, must-revalidate');
  // An ETag alone computes no must-revalidate (ResponseHeaderBag::computeCacheControlValue).
  const tagged = await send(app, '/tagged', { headers: { 'if-none-match': '"v1"' } });
  assert.equal(tagged.status, 304);
  assert.equal(tagged.headers.get('cache-control'), 'no-cache, private');
});

test('regression: a converter returning a thenable whose then() returns nothing let the controller run with the raw value, and its 404 was thrown later, uncaught', async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    // A hand-written thenable, as `await` accepts it: `then` settles later and returns nothing.
    const thenable = (value: unknown) => ({ then(resolve: (v: unknown) => void) { setTimeout(() => resolve(value), 1); } });
    const { app } = testApp({
      env: 'prod',
      routes: [{
        name: 'lookup',
        path: '/lookup/:thing',
        controller: (r: KernelRequest) => HttpResponse.json(r.attributes.get('thing')),
        options: { converters: { thing: (value: unknown) => thenable(value === 'known' ? { name: 'Known thing' } : null) } },
      }],
    });
    assert.deepEqual(await (await send(app, '/lookup/known')).json(), { name: 'Known thing' });
    const missing = await send(app, '/lookup/unknown', { headers: { accept: 'application/json' } });
    assert.equal(missing.status, 404, 'the controller does not run with the unconverted value');
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(uncaught, []);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});

test('regression: the cache option\'s 304 still called the kernel.controller listeners after HttpCacheListener; Sensio\'s stops propagation there', async () => {
  for (const debug of [false, true]) {
    const called: string[] = [];
    const { app, lines } = testApp({
      debug,
      env: debug ? 'dev' : 'prod',
      routes,
      listeners: [{ hook: 'kernel.controller', listener: { id: 'App::afterCache', role: 'audit', priority: -10, call: (e) => void called.push(String(e.request.attributes.get('_route'))) } }],
    });
    assert.equal((await send(app, '/etag')).status, 200);
    assert.deepEqual(called, ['etag'], `debug ${debug}: called for the 200`);
    assert.equal((await send(app, '/etag', { headers: { 'if-none-match': '"v1"' } })).status, 304);
    assert.deepEqual(called, ['etag'], `debug ${debug}: not called for the 304`);
    if (debug) {
      assert.ok(lines.some((l) => l.includes('Listener "HttpCacheListener::onKernelController" stopped propagation of the event "kernel.controller".')), 'the stop is logged');
      assert.ok(lines.some((l) => l.includes('Listener "TemplateListener::onKernelController" was not called for event "kernel.controller".')), 'TemplateListener is skipped too');
    }
  }
});
