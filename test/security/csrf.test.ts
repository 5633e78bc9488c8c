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
  assert.match(token, /^[A-Za-z0-9_-]{43}$/, '256 bits, URI-safe');
  const cookie = `IRMSSESSID=${setCookies(page).get('IRMSSESSID')!.value}`;

  assert.equal(await (await send(app, '/login', form(cookie, token))).text(), 'checked');
  for (const bad of [token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'), '', undefined]) {
    assert.equal((await send(app, '/login', form(cookie, bad))).status, 403, String(bad));
  }
  assert.equal((await send(app, '/login', form('', token))).status, 403, 'another session has no such token');

  const again = await (await send(app, '/again', { headers: { cookie } })).json();
  assert.equal(again.same, token, 'the same token for the same id while the session lasts');
  assert.notEqual(again.other, token, 'one per id');

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
