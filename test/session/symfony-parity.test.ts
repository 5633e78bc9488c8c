import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csrfToken, HttpResponse, MemorySessionStore, removeCsrfToken, type RouteDefinition } from '../../src/index.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

/**
 * Single-request behaviour of the session, its flash bag and the CSRF helpers compared with Symfony 5.4
 * (AbstractSessionListener, Session, SessionBagProxy, FlashBag, CsrfTokenManager).
 */

test('regression: the warning for session use on a stateless route was logged on channel "request"; Symfony\'s SessionListener logs it through the `logger` service, channel "app"', async () => {
  // FrameworkBundle's session.php gives session_listener `service('logger')` and no monolog.logger channel tag
  // (router_listener, by contrast, is tagged `channel: request`), so the line is `app.WARNING: …`.
  const routes: RouteDefinition[] = [
    { name: 'stateless', path: '/stateless', controller: (r) => { r.getSession().set('x', 1); return HttpResponse.text('x'); }, options: { stateless: true } },
  ];
  const { app, lines } = testApp({ routes, env: 'prod', debug: false });
  const r = await send(app, '/stateless');
  assert.equal(r.status, 200);
  const line = lines.find((l) => l.includes('Session was used while the request was declared stateless.'));
  assert.ok(line, 'the warning is logged');
  assert.match(line, /\] app\.WARNING: Session was used while the request was declared stateless\. \[\]/);
});

test('regression: getFlashBag() alone did not count as using the session, so a public response stayed publicly cacheable (Symfony\'s getBag starts the session and counts as a use)', async () => {
  const routes: RouteDefinition[] = [
    { name: 'bag', path: '/bag', controller: (r) => { r.getSession().getFlashBag(); return HttpResponse.text('x', 200, { 'cache-control': 'public, max-age=600' }); } },
    { name: 'write', path: '/write', controller: (r) => { r.getSession().set('a', 1); return HttpResponse.text('w'); } },
  ];
  // No firewall: nothing else touches the session.
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore(), firewalls: [{ name: 'main', security: false }] });
  const r = await send(app, '/bag');
  assert.equal(r.headers.get('cache-control'), 'max-age=0, must-revalidate, private');
  assert.ok(r.headers.get('expires'));
  assert.deepEqual(r.headers.getSetCookie(), [], 'an empty new session sets no cookie');
  // With the cookie of a live session: used (private), nothing new to send.
  const id = setCookies(await send(app, '/write')).get('IRMSSESSID')!.value;
  const again = await send(app, '/bag', { headers: { cookie: `IRMSSESSID=${id}` } });
  assert.equal(again.headers.get('cache-control'), 'max-age=0, must-revalidate, private');
  assert.deepEqual(again.headers.getSetCookie(), []);
  // With a cookie naming no session: the session was started and is empty, so the cookie is cleared as Symfony clears it.
  const stale = await send(app, '/bag', { headers: { cookie: `IRMSSESSID=${'a'.repeat(43)}` } });
  assert.match(stale.headers.getSetCookie()[0] ?? '', /^IRMSSESSID=deleted; expires=.*; Max-Age=0; path=\/; httponly; samesite=lax$/);
});

test('regression: session.remove() answered nothing; Symfony\'s Session::remove returns the value it removed', async () => {
  const routes: RouteDefinition[] = [
    {
      name: 'remove',
      path: '/remove',
      controller: (r) => {
        const session = r.getSession();
        session.set('cart', [1, 2]);
        session.set('nothing', null);
        const remove = session.remove.bind(session) as (key: string) => unknown;
        return HttpResponse.json({ cart: remove('cart') ?? 'missing', nothing: remove('nothing'), unknown: remove('unknown') ?? 'missing', left: session.all() });
      },
    },
  ];
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore() });
  assert.deepEqual(await (await send(app, '/remove')).json(), { cart: [1, 2], nothing: null, unknown: 'missing', left: {} });
});

test('regression: flashBag.setAll() split a single message into characters (and threw on a number); it takes one message or a list per type, as set() does', async () => {
  const routes: RouteDefinition[] = [
    {
      name: 'setall',
      path: '/setall',
      controller: (r) => {
        const flashes = r.getSession().getFlashBag();
        flashes.setAll({ notice: 'Saved', count: 3, none: null, list: ['a', 'b'] } as unknown as Record<string, unknown[]>);
        return HttpResponse.json(flashes.peekAll());
      },
    },
  ];
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore() });
  const r = await send(app, '/setall');
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { notice: ['Saved'], count: [3], none: [], list: ['a', 'b'] });
});

test('regression: removeCsrfToken() answered nothing; CsrfTokenManager::removeToken returns the removed token value, or null when there was none', async () => {
  const routes: RouteDefinition[] = [
    {
      name: 'remove',
      path: '/remove',
      controller: (r) => {
        csrfToken(r, 'form');
        const stored = r.getSession().get('_csrf/form');
        return HttpResponse.json({ same: removeCsrfToken(r, 'form') === stored, again: removeCsrfToken(r, 'form') ?? 'null' });
      },
    },
  ];
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore() });
  assert.deepEqual(await (await send(app, '/remove')).json(), { same: true, again: 'null' });
});
