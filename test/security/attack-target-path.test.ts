// The login target path attacked as a client would: a way back through the login that leaves the site.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getTargetPath, HttpResponse, logIn, MemorySessionStore, removeTargetPath, type RouteDefinition } from '../../src/index.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

/** The login controller the README shows: back to the target path, else home. */
const routes: RouteDefinition[] = [
  {
    name: 'login',
    path: '/login',
    methods: ['POST'],
    controller: (r) => {
      logIn(r, { memberId: '42', irmsToken: 'tok-42' });
      const back = getTargetPath(r);
      removeTargetPath(r);
      return HttpResponse.redirect(back ?? '/');
    },
  },
  { name: 'account', path: '/account', controller: () => HttpResponse.text('account'), options: { requiresLogin: true } },
];

function setup() {
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore(), loginPath: '/login', environment: { APP_SECRET: 'test-secret' } });
  return app;
}

/** The session id an anonymous GET of /account starts (its login redirect keeps the way back). */
async function anonymousVisit(app: ReturnType<typeof setup>, url: string, headers: Record<string, string> = {}): Promise<string> {
  const r = await send(app, url, { headers: { accept: 'text/html', ...headers } });
  assert.equal(r.status, 302);
  return setCookies(r).get('IRMSSESSID')!.value;
}

test('regression: a session whose target path was kept from a request naming another Host (a session planted in the visitor\'s browser) sent the member to that host after login; the login now goes home', async () => {
  const app = setup();
  for (const host of ['evil.example', 'EVIL.example:8080', 'localhost.evil.example', 'localhost:81']) {
    const sid = await anonymousVisit(app, '/account?tab=orders', { host });
    const login = await send(app, '/login', { method: 'POST', headers: { cookie: `IRMSSESSID=${sid}` } });
    assert.equal(login.status, 302, host);
    assert.equal(login.headers.get('location'), '/', host);
  }
});

test('the way back on this host still works, whatever the case of the Host at login', async () => {
  const app = setup();
  const sid = await anonymousVisit(app, '/account?tab=orders', { host: 'LocalHost:8000' });
  const login = await send(app, '/login', { method: 'POST', headers: { cookie: `IRMSSESSID=${sid}`, host: 'LOCALHOST:8000' } });
  assert.equal(login.headers.get('location'), 'http://localhost:8000/account?tab=orders');
});

test('regression: a target path kept over plain http was followed by a login over https (a downgrade to http); as with Symfony\'s cookie_secure auto, only an https way back counts there', async () => {
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore(), loginPath: '/login', environment: { APP_SECRET: 'test-secret', TRUSTED_PROXIES: '127.0.0.1' } });
  const viaProxy = { remoteAddress: '127.0.0.1' };
  const https = { 'x-forwarded-proto': 'https' };
  const plain = await send(app, '/account', { ...viaProxy, headers: { accept: 'text/html' } });
  const overHttps = await send(app, '/login', { method: 'POST', ...viaProxy, headers: { cookie: `IRMSSESSID=${setCookies(plain).get('IRMSSESSID')!.value}`, ...https } });
  assert.equal(overHttps.headers.get('location'), '/');

  const secure = await send(app, '/account', { ...viaProxy, headers: { accept: 'text/html', ...https } });
  const back = await send(app, '/login', { method: 'POST', ...viaProxy, headers: { cookie: `IRMSSESSID=${setCookies(secure).get('IRMSSESSID')!.value}`, ...https } });
  assert.equal(back.headers.get('location'), 'https://localhost/account');
});
