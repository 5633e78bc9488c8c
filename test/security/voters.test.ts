import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, HttpResponse, logIn, MemorySessionStore, type RouteDefinition } from '../../src/index.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  { name: 'login', path: '/login', methods: ['POST'], controller: (r) => { logIn(r, { memberId: '1', irmsToken: 't', roles: ['admin', 'ROLE_EDITOR'] }); return HttpResponse.text('in'); } },
  { name: 'by_name', path: '/by-name', controller: () => HttpResponse.text('open'), options: { isGranted: 'admin' } },
  { name: 'by_role', path: '/by-role', controller: () => HttpResponse.text('open'), options: { isGranted: 'ROLE_EDITOR' } },
  { name: 'by_predicate', path: '/by-predicate', controller: () => HttpResponse.text('open'), options: { security: (c) => c.isGranted('admin') } },
];

test('regression: a role name without ROLE_ was granted to a member holding it; Symfony\'s RoleVoter votes on ROLE_* only, so no voter grants it', async () => {
  const { app } = testApp({ routes, sessionStore: new MemorySessionStore(), environment: { APP_SECRET: 'voters-secret' } });
  const sid = setCookies(await send(app, '/login', { method: 'POST' })).get('IRMSSESSID')!.value;
  const cookie = { headers: { cookie: `IRMSSESSID=${sid}`, accept: 'application/json' } };
  assert.equal((await send(app, '/by-role', cookie)).status, 200, 'a ROLE_ role the member holds');
  assert.equal((await send(app, '/by-name', cookie)).status, 403);
  assert.equal((await send(app, '/by-predicate', cookie)).status, 403);
});

test('an accessControl role no voter decides is refused when the app is built, with what to write instead', () => {
  assert.throws(() => createApp({ routes, accessControl: [{ path: '^/admin', roles: ['admin'] }] }), /"roles" has "admin", which no voter decides .*roles start with ROLE_/);
  assert.doesNotThrow(() => createApp({ routes, accessControl: [{ path: '^/admin', roles: ['ROLE_ADMIN', 'IS_AUTHENTICATED_FULLY'] }, { path: '^/', roles: 'PUBLIC_ACCESS' }] }));
});

test('regression: the isGranted option let everyone in when PUBLIC_ACCESS was listed beside a role; AuthenticatedVoter grants PUBLIC_ACCESS only alone', async () => {
  const open: RouteDefinition[] = [
    ...routes,
    { name: 'public_or_editor', path: '/public-or-editor', controller: () => HttpResponse.text('open'), options: { isGranted: ['PUBLIC_ACCESS', 'ROLE_EDITOR'] } },
    { name: 'public_only', path: '/public-only', controller: () => HttpResponse.text('open'), options: { isGranted: ['PUBLIC_ACCESS'] } },
  ];
  const { app } = testApp({ routes: open, sessionStore: new MemorySessionStore(), environment: { APP_SECRET: 'voters-secret' } });
  const json = { headers: { accept: 'application/json' } };
  assert.equal((await send(app, '/public-or-editor', json)).status, 401, 'anonymous: the role decides');
  assert.equal((await send(app, '/public-only', json)).status, 200, 'alone, PUBLIC_ACCESS grants');
  const sid = setCookies(await send(app, '/login', { method: 'POST' })).get('IRMSSESSID')!.value;
  assert.equal((await send(app, '/public-or-editor', { headers: { cookie: `IRMSSESSID=${sid}`, accept: 'application/json' } })).status, 200, 'a member holding the role');
});
