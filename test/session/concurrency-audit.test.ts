import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getMember, HttpResponse, logIn, MemorySessionStore, type RouteDefinition, type SessionStore } from '../../src/index.ts';
import { gate, send, setCookies, testApp } from '../pipeline/harness.ts';

const until = async (cond: () => boolean) => {
  while (!cond()) await new Promise((resolve) => setImmediate(resolve));
};
const cookieOf = (sid: string) => ({ headers: { cookie: `IRMSSESSID=${sid}` } });

/** `/hold-show`: loads the flashes, says it has (`onEnter`), waits for `opened`, then shows and takes them. */
function holdShowRoute(opened: Promise<unknown>, onEnter: () => void): RouteDefinition {
  return {
    name: 'hold_show',
    path: '/hold-show',
    controller: async (r) => {
      const flashes = r.getSession().getFlashBag();
      flashes.peekAll();
      onEnter();
      await opened;
      return HttpResponse.json(flashes.all());
    },
  };
}

/** Pages that add or show flashes; `/hold-show` loads the flashes, waits for `release`, then shows them. */
function flashApp() {
  const release = gate();
  let entered = 0;
  const routes: RouteDefinition[] = [
    { name: 'add', path: '/add/:msg', controller: (r) => { r.getSession().getFlashBag().add('success', r.attributes.getString('msg')); return HttpResponse.text('added'); } },
    { name: 'hold_add', path: '/hold-add/:msg', controller: async (r) => {
      const flashes = r.getSession().getFlashBag();
      flashes.peekAll();
      entered++;
      await release.opened;
      flashes.add('success', r.attributes.getString('msg'));
      return HttpResponse.text('added');
    } },
    { name: 'show', path: '/show', controller: (r) => HttpResponse.json(r.getSession().getFlashBag().all()) },
    holdShowRoute(release.opened, () => entered++),
    { name: 'keep', path: '/keep', controller: (r) => { r.getSession().set('cart', 1); return HttpResponse.text('kept'); } },
  ];
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore(), env: 'prod', debug: false });
  return { app, release: release.open, entered: () => entered };
}

test('regression: a flash added while another request was showing the flashes was lost (the flash bag key was replaced whole by the request saved last)', async () => {
  const { app, release, entered } = flashApp();
  const sid = setCookies(await send(app, '/keep')).get('IRMSSESSID')!.value;
  await send(app, '/add/first', cookieOf(sid));
  const showing = send(app, '/hold-show', cookieOf(sid));
  await until(() => entered() === 1);
  assert.equal(await (await send(app, '/add/second', cookieOf(sid))).text(), 'added');
  release();
  assert.deepEqual(await (await showing).json(), { success: ['first'] });
  assert.deepEqual(await (await send(app, '/show', cookieOf(sid))).json(), { success: ['second'] }, 'second is shown once, first not again');
});

test('regression: a flash added by a request that loaded the session before another showed the flashes brought the shown ones back, so they were shown twice', async () => {
  const { app, release, entered } = flashApp();
  const sid = setCookies(await send(app, '/keep')).get('IRMSSESSID')!.value;
  await send(app, '/add/first', cookieOf(sid));
  const adding = send(app, '/hold-add/second', cookieOf(sid));
  await until(() => entered() === 1);
  assert.deepEqual(await (await send(app, '/show', cookieOf(sid))).json(), { success: ['first'] });
  release();
  assert.equal(await (await adding).text(), 'added');
  assert.deepEqual(await (await send(app, '/show', cookieOf(sid))).json(), { success: ['second'] }, 'first was shown already');
});

test('regression: a request that emptied its copy of the session while a concurrent login rotated the id cleared the cookie, logging the new member out', async () => {
  const release = gate();
  let entered = 0;
  const routes: RouteDefinition[] = [
    { name: 'add', path: '/add', controller: (r) => { r.getSession().getFlashBag().add('info', 'hello'); return HttpResponse.text('added'); } },
    holdShowRoute(release.opened, () => entered++),
    { name: 'login', path: '/login', methods: ['POST'], controller: (r) => { logIn(r, { memberId: 'm1', irmsToken: 'tok' }); return HttpResponse.text('in'); } },
    { name: 'me', path: '/me', controller: (r) => HttpResponse.text(getMember(r)?.memberId ?? 'anonymous') },
  ];
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore(), env: 'prod', debug: false, environment: { APP_SECRET: 'test-secret' } });
  const sid = setCookies(await send(app, '/add')).get('IRMSSESSID')!.value;
  const showing = send(app, '/hold-show', cookieOf(sid));
  await until(() => entered === 1);
  const login = await send(app, '/login', { method: 'POST', ...cookieOf(sid) });
  const member = setCookies(login).get('IRMSSESSID')!.value;
  assert.ok(member && member !== sid);
  release.open();
  const shown = await showing;
  assert.deepEqual(await shown.json(), { info: ['hello'] });
  assert.equal(setCookies(shown).get('IRMSSESSID'), undefined, 'the late response leaves the cookie (now the member\'s) alone');
  assert.equal(await (await send(app, '/me', cookieOf(member))).text(), 'm1');
});

test('regression: a session used synchronously before an asynchronous store\'s read rejected left an unhandled rejection', async () => {
  const rejections: unknown[] = [];
  const onRejection = (reason: unknown) => rejections.push(reason);
  process.on('unhandledRejection', onRejection);
  try {
    const store: SessionStore = {
      read: () => Promise.reject(new Error('store down')),
      write: () => undefined,
      destroy: () => undefined,
    };
    const routes: RouteDefinition[] = [
      { name: 'peek', path: '/peek', controller: (r) => HttpResponse.json({ x: r.getSession().get('x') ?? null }) },
    ];
    const { app } = testApp({ routes, sessionStore: store, env: 'prod', debug: false, firewalls: [{ name: 'open', security: false }] });
    const r = await send(app, '/peek', cookieOf('a'.repeat(43)));
    assert.equal(r.status, 500, 'SessionNotLoadedError, as documented');
    await r.text();
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(rejections, []);
  } finally {
    process.off('unhandledRejection', onRejection);
  }
});
