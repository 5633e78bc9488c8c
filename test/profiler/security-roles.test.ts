/**
 * The Security panel lists the member's roles and how the member was authenticated, as Symfony's
 * security panel shows Roles and the token class. Profiles stored before these were recorded still open.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { HttpResponse, logIn, MemorySessionStore } from '../../src/index.ts';
import type { RouteDefinition } from '../../src/routing/route.ts';
import { get, profiledApp, profileOf, tick } from './support.ts';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const routes: RouteDefinition[] = [
  { name: 'login', path: '/login', controller: (r) => { logIn(r, { memberId: '42', irmsToken: 'tok-42-secret', roles: ['ROLE_ADMIN', 'ROLE_<b>'] }); return HttpResponse.text('in'); } },
  { name: 'page', path: '/page', controller: () => HttpResponse.text('page') },
];

function app(dsn?: string) {
  return profiledApp({ sessionStore: new MemorySessionStore(), environment: { APP_SECRET: 'roles-secret' }, routes, ...(dsn ? { profilerDsn: dsn } : {}) });
}

async function memberPage(a: ReturnType<typeof app>): Promise<Response> {
  const login = await get(a, '/login');
  const cookie = login.headers.getSetCookie().map((l) => l.split(';')[0]).join('; ');
  return get(a, '/page', { headers: { cookie } });
}

test('the Security panel lists a member\'s roles, ROLE_USER included, escaped, and how the member was authenticated', async () => {
  const a = app();
  const profile = await profileOf(a, await memberPage(a));
  assert.deepEqual(profile.security.roles, ['ROLE_ADMIN', 'ROLE_<b>', 'ROLE_USER']);
  assert.equal(profile.security.authenticatedBy, 'session');
  const panel = await (await get(a, `/_profiler/${profile.token}?panel=security`)).text();
  assert.match(panel, /<h3>Roles<\/h3><ul class="pf-roles"><li class="pf-mono">ROLE_ADMIN<\/li><li class="pf-mono">ROLE_&lt;b&gt;<\/li><li class="pf-mono">ROLE_USER<\/li><\/ul>/);
  assert.match(panel, /<th scope="row">authenticated_by<\/th><td><span class="pf-str">session<\/span>/);

  const fresh = await profileOf(a, await get(a, '/login'));
  assert.equal(fresh.security.authenticatedBy, 'login', 'the request that logged in');

  const anonymous = await profileOf(a, await get(a, '/page'));
  assert.deepEqual(anonymous.security.roles, []);
  assert.equal(anonymous.security.authenticatedBy, null);
  assert.match(await (await get(a, `/_profiler/${anonymous.token}?panel=security`)).text(), /No roles: the request has no member\./);
});

test('a profile stored before roles were recorded opens, and says so; one whose roles are not strings reads as absent', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'irms-roles-'));
  dirs.push(dir);
  const a = app(`file:${dir}`);
  const token = (await memberPage(a)).headers.get('x-debug-token')!;
  const file = join(dir, `${token}.json`);
  for (let i = 0; i < 200 && !readable(file); i++) await tick();
  const stored = JSON.parse(readFileSync(file, 'utf8')) as { security: Record<string, unknown> };
  delete stored.security.roles;
  delete stored.security.authenticatedBy;
  writeFileSync(file, JSON.stringify(stored));
  const old = await get(a, `/_profiler/${token}?panel=security`);
  assert.equal(old.status, 200);
  assert.match(await old.text(), /This profile was stored without roles\./);
  assert.equal((await get(a, `/_wdt/${token}`)).status, 200);

  stored.security.roles = [{ not: 'a string' }];
  writeFileSync(file, JSON.stringify(stored));
  assert.match(await (await get(a, `/_profiler/${token}?panel=security`)).text(), /<h2>Token not found<\/h2>/);
});

function readable(file: string): boolean {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) !== null;
  } catch {
    return false;
  }
}
