// Security audit of 2026-11-24: findings compared with Symfony 5.4's behaviour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FirewallMap, HttpResponse, MemorySessionStore, type AppOptions, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

const JSON_CLIENT = { accept: 'application/json' };

const routes: RouteDefinition[] = [
  { name: 'edit', path: '/admin/:id/edit', controller: (r) => HttpResponse.text(`edited ${JSON.stringify(r.attributes.get('id'))}`) },
  { name: 'page', path: '/p/:page', controller: (r) => HttpResponse.text(`page ${String(r.attributes.get('_firewall'))}`) },
];

function setup(options: AppOptions) {
  return testApp({ routes, sessionStore: new MemorySessionStore(), environment: { APP_SECRET: 'test-secret' }, ...options }).app;
}

test('regression: an access_control string pattern\'s `.` refused a carriage return, so /admin/7%0D/edit escaped `^/admin/.+/edit$` (PHP\'s PCRE `.` takes every byte but LF)', async () => {
  const app = setup({ firewalls: [{ name: 'main' }], accessControl: [{ path: '^/admin/.+/edit$', roles: 'ROLE_ADMIN' }] });
  const status = async (path: string) => (await send(app, path, { headers: JSON_CLIENT })).status;
  assert.equal(await status('/admin/7/edit'), 401);
  assert.equal(await status('/admin/7%0D/edit'), 401, 'preg_match(\'{^/admin/.+/edit$}\', "/admin/7\\r/edit") is 1');
  assert.equal(await status('/admin/%0D/edit'), 401);
  // LF stays outside `.`, as in PCRE: the route still serves it, and Symfony's rule does not match it either.
  assert.equal(await status('/admin/%0A/edit'), 200);
});

test('regression: `\\S` in a string pattern stopped at the byte 0xA0 of a UTF-8 character (`à` is C3 A0), which PCRE without `u` counts as no space', async () => {
  const app = setup({ firewalls: [{ name: 'main' }], accessControl: [{ path: '^/p/\\S+$', roles: 'ROLE_ADMIN' }, { path: '^/p/[\\s]', roles: 'ROLE_ADMIN' }] });
  const status = async (path: string) => (await send(app, path, { headers: JSON_CLIENT })).status;
  assert.equal(await status('/p/abc'), 401);
  assert.equal(await status('/p/voil%C3%A0'), 401, 'every byte of `voilà` is \\S for PCRE');
  assert.equal(await status('/p/%C2%A0x'), 401, 'the UTF-8 of a no-break space is two \\S bytes too');
  assert.equal(await status('/p/%0Dx'), 401, 'a CR is \\s (the class rule)');
});

test('regression: a firewall string pattern\'s `.` refused a carriage return, so the path fell to the next firewall and its context', () => {
  const map = new FirewallMap([{ name: 'admin', pattern: '^/admin/.+/edit$' }, { name: 'main' }]);
  assert.equal(map.match('/admin/7/edit')?.name, 'admin');
  assert.equal(map.match('/admin/7%0D/edit')?.name, 'admin');
  assert.equal(map.match('/admin/7%0A/edit')?.name, 'main', 'LF is no `.`, in PCRE too');
  const regexp = new FirewallMap([{ name: 'admin', pattern: /^\/admin\/.+\/edit$/ }, { name: 'main' }]);
  assert.equal(regexp.match('/admin/7%0D/edit')?.name, 'main', 'a RegExp keeps JavaScript\'s reading');
});

test('regression: PCRE syntax JavaScript reads otherwise ([[:digit:]], \\h, \\Q…\\E, \\p{L}, \\x{41}) compiled in a string pattern to a rule that never matched, letting every request through; it is refused when the app is built', () => {
  for (const [path, construct] of [['^/u/[[:digit:]]+$', /POSIX class/], ['^/a\\h', /\\h means something else/], ['^/\\Qa.b\\E', /\\Q means/], ['^/\\p{L}', /\\p means/], ['^/\\x{41}', /\\x\{ means/]] as const) {
    assert.throws(() => setup({ firewalls: [{ name: 'main' }], accessControl: [{ path, roles: 'ROLE_ADMIN' }] }), { message: new RegExp(`rule 0 "path" does not compile: .*${construct.source}`) }, path);
    assert.throws(() => new FirewallMap([{ name: 'admin', pattern: path }]), { message: new RegExp(`^Firewall "admin": pattern .* does not compile: .*${construct.source}`) }, path);
  }
  // What both read alike still compiles.
  assert.equal(new FirewallMap([{ name: 'admin', pattern: '^/u/\\d+\\.json$' }]).match('/u/12.json')?.name, 'admin');
  assert.equal(new FirewallMap([{ name: 'admin', pattern: '^/\\x41' }]).match('/A')?.name, 'admin');
});
