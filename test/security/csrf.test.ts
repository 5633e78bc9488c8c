import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AccessDeniedHttpException, csrfToken, HttpResponse, isCsrfTokenValid, MemorySessionStore, refreshCsrfToken, removeCsrfToken, type RouteDefinition } from '../../src/index.ts';
import { profiledApp, profileOf } from '../profiler/support.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

/** A login form as Symfony's make:auth writes it: csrf_token('authenticate') in the form, checked on POST. */
const routes: RouteDefinition[] = [
  { name: 'form', path: '/login', methods: ['GET'], controller: (r) => HttpResponse.html(`<input type="hidden" name="_csrf_token" value="${csrfToken(r, 'authenticate')}">`) },
  {
    name: 'check',
    path: '/login',
    methods: ['POST'],
    controller: (r) => {
      if (!isCsrfTokenValid(r, 'authenticate', r.request.get('_csrf_token'))) throw new AccessDeniedHttpException('Invalid CSRF token.');
      return HttpResponse.text('checked');
    },
  },
  { name: 'again', path: '/again', controller: (r) => HttpResponse.json({ same: csrfToken(r, 'authenticate'), other: csrfToken(r, 'delete-item') }) },
  { name: 'refresh', path: '/refresh', controller: (r) => HttpResponse.text(refreshCsrfToken(r, 'authenticate')) },
  { name: 'remove', path: '/remove', controller: (r) => { removeCsrfToken(r, 'authenticate'); return HttpResponse.text('removed'); } },
];

const tokenOf = (html: string) => /value="([^"]+)"/.exec(html)![1]!;

function form(cookie: string, token: unknown) {
  const body = typeof token === 'string' ? `_csrf_token=${encodeURIComponent(token)}` : '';
  return { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body };
}

test('a form\'s CSRF token is issued into the session and checked on submit (Symfony\'s csrf_token / isCsrfTokenValid)', async () => {
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore() });
  const page = await send(app, '/login');
  const token = tokenOf(await page.text());
  assert.match(token, /^[0-9a-f]{1,32}\.[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{58}$/, 'a 256-bit URI-safe token, masked as CsrfTokenManager::randomize masks it');
  const cookie = `IRMSSESSID=${setCookies(page).get('IRMSSESSID')!.value}`;

  assert.equal(await (await send(app, '/login', form(cookie, token))).text(), 'checked');
  // A character inside the masked value: the last one may hold only bits base64 decoding drops.
  const at = token.length - 10;
  const tampered = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
  for (const bad of [tampered, token.split('.').slice(1).join('.'), `${token}.x`, 'a.!!.??', '', undefined]) {
    assert.equal((await send(app, '/login', form(cookie, bad))).status, 403, String(bad));
  }
  assert.equal((await send(app, '/login', form('', token))).status, 403, 'another session has no such token');

  const again = await (await send(app, '/again', { headers: { cookie } })).json();
  assert.equal((await send(app, '/login', form(cookie, again.same))).status, 200, 'the same token for the same id while the session lasts');
  assert.equal((await send(app, '/login', form(cookie, again.other))).status, 403, 'one per id');

  const refreshed = await (await send(app, '/refresh', { headers: { cookie } })).text();
  assert.notEqual(refreshed, token);
  assert.equal((await send(app, '/login', form(cookie, token))).status, 403, 'the old token is gone');
  await send(app, '/remove', { headers: { cookie } });
  assert.equal((await send(app, '/login', form(cookie, refreshed))).status, 403, 'removed');
});

test('a token issued over HTTP is not valid over HTTPS (the https- namespace)', async () => {
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore() });
  const page = await send(app, '/login');
  const token = tokenOf(await page.text());
  const cookie = `IRMSSESSID=${setCookies(page).get('IRMSSESSID')!.value}`;
  const secure = await app.fetch(new Request('https://localhost/login', form(cookie, token)), { remoteAddress: '127.0.0.1', scheme: 'https' } as never);
  assert.equal(secure.status, 403);
});

test('the session\'s CSRF tokens are masked in the profile', async () => {
  const app = profiledApp({ routes, sessionStore: new MemorySessionStore() });
  const page = await app.fetch(new Request('http://127.0.0.1:8000/login'), { remoteAddress: '127.0.0.1' });
  const token = tokenOf(await page.clone().text());
  const profile = await profileOf(app, page);
  assert.equal(profile.session?.attributes['_csrf/authenticate'], '***');
  assert.ok(!JSON.stringify(profile).includes(token));
});

test('regression: csrfToken() printed the session\'s token itself, the same bytes on every page (what BREACH recovers from compressed pages); each call now masks it afresh, as Symfony 5.4 does, and every masked form is accepted', async () => {
  const routes: RouteDefinition[] = [
    {
      name: 'issue',
      path: '/issue',
      controller: (r) => {
        const tokens = [csrfToken(r, 'authenticate'), csrfToken(r, 'authenticate')];
        return HttpResponse.json({ tokens, stored: r.getSession().get('_csrf/authenticate'), valid: tokens.map((t) => isCsrfTokenValid(r, 'authenticate', t)) });
      },
    },
    { name: 'check', path: '/check', methods: ['POST'], controller: (r) => HttpResponse.text(String(isCsrfTokenValid(r, 'authenticate', r.request.get('_csrf_token')))) },
  ];
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore() });
  const page = await send(app, '/issue');
  const { tokens, stored, valid } = await page.json();
  assert.notEqual(tokens[0], tokens[1], 'two renderings, two different strings');
  for (const token of tokens) assert.ok(!token.includes(stored), 'the secret never appears as such');
  assert.deepEqual(valid, [true, true]);
  const cookie = `IRMSSESSID=${setCookies(page).get('IRMSSESSID')!.value}`;
  for (const token of [...tokens, stored]) {
    assert.equal(await (await send(app, '/check', form(cookie, token))).text(), 'true', 'masked forms and the bare token, as CsrfTokenManager::derandomize reads them');
  }
});

test('regression: a CSRF token issued before the login stayed valid after it (Symfony 5.4.20 clears them on login, CVE-2022-24895)', async () => {
  const { logIn } = await import('../../src/index.ts');
  const app = testApp({
    sessionStore: new MemorySessionStore(),
    environment: { APP_SECRET: 'csrf-login-secret' },
    routes: [
      { name: 'issue', path: '/issue', controller: (r) => HttpResponse.text(csrfToken(r, 'delete')) },
      { name: 'in', path: '/in', methods: ['POST'], controller: (r) => { logIn(r, { memberId: '1', irmsToken: 't' }); return HttpResponse.text('in'); } },
      { name: 'check', path: '/check', methods: ['POST'], controller: (r) => HttpResponse.text(String(isCsrfTokenValid(r, 'delete', r.request.get('_token')))) },
    ],
  }).app;
  const issued = await send(app, '/issue');
  const token = await issued.text();
  const anonymous = `IRMSSESSID=${setCookies(issued).get('IRMSSESSID')!.value}`;
  const check = (cookie: string) => send(app, '/check', { method: 'POST', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' }, body: `_token=${encodeURIComponent(token)}` });
  assert.equal(await (await check(anonymous)).text(), 'true', 'valid before the login');
  const login = await send(app, '/in', { method: 'POST', headers: { cookie: anonymous } });
  const member = `IRMSSESSID=${setCookies(login).get('IRMSSESSID')!.value}`;
  assert.equal(await (await check(member)).text(), 'false');
});

test('regression: a CSRF token issued before a remember-me login stayed valid after it (the session was migrated, its CSRF tokens kept: CVE-2022-24895 through the remember-me cookie)', async () => {
  const { logIn } = await import('../../src/index.ts');
  const app = testApp({
    sessionStore: new MemorySessionStore(),
    environment: { APP_SECRET: 'csrf-remember-secret' },
    routes: [
      { name: 'issue', path: '/issue', controller: (r) => HttpResponse.text(csrfToken(r, 'delete')) },
      { name: 'in', path: '/in', methods: ['POST'], controller: (r) => { logIn(r, { memberId: '1', irmsToken: 't', rememberMe: true }); return HttpResponse.text('in'); } },
      { name: 'home', path: '/home', controller: (r) => HttpResponse.text(String(r.attributes.get('member_id'))) },
      { name: 'check', path: '/check', methods: ['POST'], controller: (r) => HttpResponse.text(String(isCsrfTokenValid(r, 'delete', r.request.get('_token')))) },
    ],
  }).app;
  // The victim's browser holds a remember-me cookie from an earlier visit.
  const remembered = setCookies(await send(app, '/in', { method: 'POST' })).get('REMEMBERME')!.value;
  // An attacker's anonymous session, whose CSRF token the attacker knows, planted in that browser.
  const issued = await send(app, '/issue');
  const token = await issued.text();
  const planted = `IRMSSESSID=${setCookies(issued).get('IRMSSESSID')!.value}`;
  // The victim comes back: the remember-me cookie logs them in on the planted session, migrated to a new id.
  const back = await send(app, '/home', { headers: { cookie: `${planted}; REMEMBERME=${encodeURIComponent(remembered)}` } });
  assert.equal(await back.text(), '1', 'logged in by the remember-me cookie');
  const member = `IRMSSESSID=${setCookies(back).get('IRMSSESSID')!.value}`;
  assert.notEqual(member, planted, 'the session id was rotated');
  const check = await send(app, '/check', { method: 'POST', headers: { cookie: member, 'content-type': 'application/x-www-form-urlencoded' }, body: `_token=${encodeURIComponent(token)}` });
  assert.equal(await check.text(), 'false', 'the token the attacker knows is not valid in the member\'s session');
});
