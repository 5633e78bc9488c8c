import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, logIn, MemorySessionStore } from '../../src/index.ts';
import { get, profiledApp, profileOf } from './support.ts';

test('regression: a member denied by accessControl before the controller showed as anonymous in the profile and the toolbar (anon.)', async () => {
  const app = profiledApp({
    sessionStore: new MemorySessionStore(),
    environment: { APP_SECRET: 'early-denial-secret' },
    accessControl: [{ path: '^/reports', roles: 'ROLE_ADMIN' }],
    routes: [
      { name: 'login', path: '/login', controller: (r) => { logIn(r, { memberId: '42', irmsToken: 'tok-42-secret', roles: ['ROLE_USER'] }); return HttpResponse.text('in'); } },
      { name: 'reports', path: '/reports', controller: () => HttpResponse.text('reports') },
    ],
  });
  const login = await get(app, '/login');
  const cookie = login.headers.getSetCookie().map((l) => l.split(';')[0]).join('; ');
  const denied = await get(app, '/reports', { headers: { cookie, accept: 'text/html' } });
  assert.equal(denied.status, 403);
  const profile = await profileOf(app, denied);
  assert.equal(profile.security.memberId, '42');
  assert.equal(profile.security.authenticated, true);
  assert.equal(profile.security.token, 'tok-…', 'masked as everywhere');
  const toolbar = await (await get(app, `/_wdt/${profile.token}`)).text();
  assert.ok(toolbar.includes('42') && !toolbar.includes('anon.'), 'the toolbar names the member');
});
