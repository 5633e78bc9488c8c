import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, getMember, HttpResponse, logIn, MemorySessionStore, signMemberToken, type RouteDefinition } from '../../src/index.ts';
import { RoleHierarchy } from '../../src/security/role-hierarchy.ts';
import { send, setCookies, testApp } from '../pipeline/harness.ts';
import { get, profiledApp, profileOf } from '../profiler/support.ts';

const SECRET = 'role-hierarchy-secret';
const HIERARCHY = { ROLE_ADMIN: ['ROLE_EDITOR', 'ROLE_AUDITOR'], ROLE_EDITOR: 'ROLE_API' };

const routes: RouteDefinition[] = [
  { name: 'login', path: '/login', methods: ['POST'], controller: (r) => {
    const member = logIn(r, { memberId: 'ada', irmsToken: 't-ada', roles: ['ROLE_ADMIN'] });
    return HttpResponse.json({ canEditNow: member.reachableRoles?.includes('ROLE_EDITOR') ?? false });
  } },
  { name: 'api', path: '/api/items', controller: () => HttpResponse.text('items') },
  { name: 'edit', path: '/edit', controller: () => HttpResponse.text('edit'), options: { isGranted: 'ROLE_API' } },
  { name: 'audit', path: '/audit', controller: () => HttpResponse.text('audit'), options: { security: (c) => c.roles.includes('ROLE_AUDITOR') && c.isGranted('ROLE_EDITOR') } },
  { name: 'me', path: '/me', controller: (r) => HttpResponse.json(getMember(r)) },
];
const accessControl = [{ path: '^/api', roles: 'ROLE_API' }];
const json = { accept: 'application/json' };

async function bearer(roles: string[]): Promise<Record<string, string>> {
  return { ...json, authorization: `Bearer ${await signMemberToken(SECRET, { memberId: 'm', roles })}` };
}

test('RoleHierarchy reaches roles however deep, each once, and a cycle ends instead of looping', () => {
  const hierarchy = RoleHierarchy.compile({ ROLE_A: 'ROLE_B', ROLE_B: ['ROLE_C', 'ROLE_A'], ROLE_C: ['ROLE_D', 'ROLE_B'] })!;
  assert.deepEqual(hierarchy.reachableRoleNames(['ROLE_A']), ['ROLE_A', 'ROLE_B', 'ROLE_C', 'ROLE_D']);
  assert.deepEqual(hierarchy.reachableRoleNames(['ROLE_D', 'ROLE_X']), ['ROLE_D', 'ROLE_X'], 'roles the hierarchy does not list reach only themselves');
  assert.equal(RoleHierarchy.compile({}), null, 'an empty hierarchy is none');
  assert.equal(RoleHierarchy.compile(undefined), null);
});

test('with roleHierarchy, access control, the isGranted option and the security option grant the roles a bearer member\'s roles reach', async () => {
  const { app } = testApp({ routes, accessControl, roleHierarchy: HIERARCHY, environment: { APP_SECRET: SECRET } });
  const admin = { headers: await bearer(['ROLE_ADMIN']) };
  assert.equal((await send(app, '/api/items', admin)).status, 200, 'ROLE_ADMIN → ROLE_EDITOR → ROLE_API');
  assert.equal((await send(app, '/edit', admin)).status, 200);
  assert.equal((await send(app, '/audit', admin)).status, 200);
  const editor = { headers: await bearer(['ROLE_EDITOR']) };
  assert.equal((await send(app, '/api/items', editor)).status, 200);
  assert.equal((await send(app, '/audit', editor)).status, 403, 'ROLE_EDITOR does not reach ROLE_AUDITOR');
  assert.equal((await send(app, '/api/items', { headers: await bearer(['ROLE_MEMBER']) })).status, 403);
  const me = await (await send(app, '/me', admin)).json();
  assert.deepEqual(me.roles, ['ROLE_ADMIN'], 'the member\'s own roles are kept apart');
  assert.deepEqual(me.reachableRoles, ['ROLE_ADMIN', 'ROLE_USER', 'ROLE_EDITOR', 'ROLE_AUDITOR', 'ROLE_API']);
});

test('without roleHierarchy a role grants only itself', async () => {
  const { app } = testApp({ routes, accessControl, environment: { APP_SECRET: SECRET } });
  const admin = { headers: await bearer(['ROLE_ADMIN']) };
  assert.equal((await send(app, '/api/items', admin)).status, 403);
  assert.equal((await send(app, '/edit', admin)).status, 403);
  assert.equal((await (await send(app, '/me', admin)).json()).reachableRoles, undefined);
});

test('a member logged in gets the reachable roles at once and on the next requests, while the session keeps only its own roles', async () => {
  const store = new MemorySessionStore();
  const { app } = testApp({ routes, accessControl, roleHierarchy: HIERARCHY, sessionStore: store, environment: { APP_SECRET: SECRET } });
  const login = await send(app, '/login', { method: 'POST' });
  assert.deepEqual(await login.json(), { canEditNow: true }, 'logIn answers the member with its reachable roles');
  const sid = setCookies(login).get('IRMSSESSID')!.value;
  const cookie = { headers: { ...json, cookie: `IRMSSESSID=${sid}` } };
  assert.equal((await send(app, '/api/items', cookie)).status, 200);
  assert.equal((await send(app, '/edit', cookie)).status, 200);
  const stored = String(await store.read(sid));
  assert.match(stored, /"roles":\["ROLE_ADMIN"\]/);
  assert.doesNotMatch(stored, /ROLE_EDITOR|reachableRoles/, 'a changed hierarchy applies to members already logged in');
});

test('a hierarchy under ROLE_USER gives its roles to every member, not to anonymous requests', async () => {
  const { app } = testApp({ routes, accessControl, roleHierarchy: { ROLE_USER: 'ROLE_API' }, environment: { APP_SECRET: SECRET } });
  assert.equal((await send(app, '/api/items', { headers: await bearer([]) })).status, 200);
  assert.equal((await send(app, '/api/items', { headers: json })).status, 401);
});

test('a roleHierarchy of the wrong shape is refused when the app is built', () => {
  assert.throws(() => createApp({ roleHierarchy: ['ROLE_ADMIN'] as never, logSink: () => {} }), /"roleHierarchy" must be an object of roles and the roles each includes .*got an array/);
  assert.throws(() => createApp({ roleHierarchy: { ROLE_ADMIN: [1] } as never, logSink: () => {} }), /role "ROLE_ADMIN" must include a role name or a list of role names/);
  assert.throws(() => createApp({ roleHierarchy: { ROLE_ADMIN: '' }, logSink: () => {} }), /role "ROLE_ADMIN" must include/);
});

test('the profiler\'s security panel lists the inherited roles apart from the member\'s own', async () => {
  const app = profiledApp({ routes, roleHierarchy: HIERARCHY, environment: { APP_SECRET: SECRET } });
  const profile = await profileOf(app, await get(app, '/me', { headers: await bearer(['ROLE_EDITOR']) }));
  assert.deepEqual(profile.security.roles, ['ROLE_EDITOR', 'ROLE_USER']);
  assert.deepEqual(profile.security.inheritedRoles, ['ROLE_API']);
  const panel = await (await get(app, `/_profiler/${profile.token}?panel=security`)).text();
  assert.match(panel, /<h3>Inherited roles<\/h3><ul class="pf-roles"><li class="pf-mono">ROLE_API<\/li><\/ul>/);
  const plain = profiledApp({ routes, environment: { APP_SECRET: SECRET } });
  const without = await profileOf(plain, await get(plain, '/me', { headers: await bearer(['ROLE_EDITOR']) }));
  assert.deepEqual(without.security.inheritedRoles, []);
  assert.doesNotMatch(await (await get(plain, `/_profiler/${without.token}?panel=security`)).text(), /Inherited roles/);
});

test('regression: a roleHierarchy given as a Map (or an object inheriting its roles) was accepted and meant no hierarchy at all', () => {
  const refused = /"roleHierarchy" must be an object of roles and the roles each includes/;
  assert.throws(() => createApp({ logSink: () => {}, roleHierarchy: new Map([['ROLE_ADMIN', ['ROLE_EDITOR']]]) as never }), /got a Map/);
  assert.throws(() => createApp({ logSink: () => {}, roleHierarchy: Object.create({ ROLE_ADMIN: ['ROLE_EDITOR'] }) }), refused);
  assert.doesNotThrow(() => createApp({ logSink: () => {}, roleHierarchy: JSON.parse('{"ROLE_ADMIN":["ROLE_EDITOR"]}') }));
});
