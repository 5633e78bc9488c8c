import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, MemorySessionStore, type RouteDefinition } from '../../src/index.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

/** A ported controller pair: AbstractController::addFlash before a redirect, the page after it reads them. */
const routes: RouteDefinition[] = [
  {
    name: 'save',
    path: '/save',
    methods: ['POST'],
    controller: (r) => {
      const flashes = r.getSession().getFlashBag();
      flashes.add('success', 'Saved.');
      flashes.add('success', 'Mail sent.');
      flashes.add('warning', { text: 'Quota at 90 %' });
      return HttpResponse.redirect('/list');
    },
  },
  {
    name: 'list',
    path: '/list',
    controller: (r) => {
      const flashes = r.getSession().getFlashBag();
      const peeked = flashes.peek('warning');
      return HttpResponse.json({ has: flashes.has('success'), keys: flashes.keys(), peeked, success: flashes.get('success'), rest: flashes.all(), after: flashes.peekAll() });
    },
  },
  {
    name: 'attributes',
    path: '/attributes',
    controller: (r) => {
      const session = r.getSession();
      session.set('cart', [1, 2]);
      session.getFlashBag().add('info', 'kept across clear()');
      const before = session.all();
      session.clear();
      return HttpResponse.json({ before, after: session.all(), flashes: session.getFlashBag().peekAll(), empty: session.isEmpty });
    },
  },
  {
    name: 'set',
    path: '/set',
    controller: (r) => {
      const flashes = r.getSession().getFlashBag();
      flashes.set('error', 'one');
      flashes.set('notice', ['a', 'b']);
      const first = flashes.peekAll();
      flashes.setAll({ info: ['x'] });
      return HttpResponse.json({ first, second: flashes.peekAll(), missing: flashes.get('nope', ['default']), hasEmpty: (flashes.set('empty', []), flashes.has('empty')) });
    },
  },
];

function setup() {
  const store = new MemorySessionStore();
  return { ...testApp({ routes, sessionStore: store, environment: { APP_SECRET: 'test-secret' } }), store };
}

test('regression: sessions had no getFlashBag, so a controller ported from Symfony (addFlash, then a redirect) was a 500; flashes are now shown once on the next page', async () => {
  const { app } = setup();
  const saved = await send(app, '/save', { method: 'POST' });
  assert.equal(saved.status, 302);
  const sid = setCookies(saved).get('IRMSSESSID')?.value;
  assert.ok(sid, 'flashes alone start the session');
  const cookie = { headers: { cookie: `IRMSSESSID=${sid}` } };

  const list = await send(app, '/list', cookie);
  assert.deepEqual(await list.json(), {
    has: true,
    keys: ['success', 'warning'],
    peeked: [{ text: 'Quota at 90 %' }],
    success: ['Saved.', 'Mail sent.'],
    rest: { warning: [{ text: 'Quota at 90 %' }] },
    after: {},
  });
  assert.equal(setCookies(list).get('IRMSSESSID')?.value, '', 'all read: the session is empty, its cookie cleared');

  const again = await send(app, '/list', cookie);
  assert.deepEqual((await again.json()).rest, {}, 'shown once');
});

test('session.all() lists the attributes without the flashes, and clear() keeps the flashes, as Symfony\'s attribute bag', async () => {
  const { app } = setup();
  const r = await send(app, '/attributes');
  assert.deepEqual(await r.json(), { before: { cart: [1, 2] }, after: {}, flashes: { info: ['kept across clear()'] }, empty: false });
});

test('set, setAll, a default for a missing type, and has() false for an empty list (FlashBag::has)', async () => {
  const { app } = setup();
  const r = await send(app, '/set');
  assert.deepEqual(await r.json(), { first: { error: ['one'], notice: ['a', 'b'] }, second: { info: ['x'] }, missing: ['default'], hasEmpty: false });
});

test('regression: set(type, null) stored a [null] message and peek/get with a default answered an empty list instead of the default; as Symfony\'s FlashBag, null sets none and an empty type gives the default', async () => {
  const routes: RouteDefinition[] = [
    {
      name: 'empty',
      path: '/empty',
      controller: (r) => {
        const flashes = r.getSession().getFlashBag();
        flashes.set('error', null);
        flashes.set('notice', []);
        return HttpResponse.json({
          error: flashes.peek('error', ['none']),
          peeked: flashes.peek('notice', ['none']),
          got: flashes.get('notice', ['none']),
          keys: flashes.keys(),
        });
      },
    },
  ];
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore() });
  assert.deepEqual(await (await send(app, '/empty')).json(), { error: ['none'], peeked: ['none'], got: ['none'], keys: ['error', 'notice'] });
});
