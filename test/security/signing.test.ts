import assert from 'node:assert/strict';
import { test } from 'node:test';
import { base64UrlDecode, base64UrlEncode, Signer } from '../../src/security/signing.ts';
import { signMemberToken, verifyMemberToken } from '../../src/security/member-token.ts';
import { FirewallMap } from '../../src/security/firewall-map.ts';
import { isGranted } from '../../src/security/member.ts';

test('seal/unseal round-trips; tampering, another purpose or another secret fail', async () => {
  const signer = new Signer('s3cret');
  const sealed = await signer.seal('purpose-a', { m: '1', list: [1, 2] });
  assert.deepEqual(await signer.unseal('purpose-a', sealed), { m: '1', list: [1, 2] });
  assert.equal(await signer.unseal('purpose-b', sealed), null);
  assert.equal(await new Signer('other').unseal('purpose-a', sealed), null);
  const [body, sig] = sealed.split('.');
  const forged = base64UrlEncode(new TextEncoder().encode(JSON.stringify({ m: '2', list: [] })));
  assert.equal(await signer.unseal('purpose-a', `${forged}.${sig}`), null);
  assert.equal(await signer.unseal('purpose-a', `${body}.${sig.slice(0, -1)}`), null);
  for (const junk of ['', '.', 'a.b.c', 'x'.repeat(5000), `${body}.`, '%%%.%%%']) assert.equal(await signer.unseal('purpose-a', junk), null, junk);
  assert.throws(() => new Signer(''), /secret/);
});

test('encrypt/decrypt round-trips; the value hides the payload; tampering, another purpose or secret, or a signed-only value fail', async () => {
  const signer = new Signer('s3cret');
  const payload = { m: '1', t: 'bearer-credential-xyz' };
  const encrypted = await signer.encrypt('purpose-a', payload);
  assert.deepEqual(await signer.decrypt('purpose-a', encrypted), payload);
  assert.notEqual(await signer.encrypt('purpose-a', payload), encrypted, 'a fresh IV each time');
  assert.ok(!new TextDecoder().decode(base64UrlDecode(encrypted)!).includes('bearer-credential'));
  assert.equal(await signer.decrypt('purpose-b', encrypted), null);
  assert.equal(await new Signer('other').decrypt('purpose-a', encrypted), null);
  const bytes = base64UrlDecode(encrypted)!;
  for (const index of [0, 12, bytes.length - 1]) {
    const flipped = bytes.slice();
    flipped[index] ^= 1;
    assert.equal(await signer.decrypt('purpose-a', base64UrlEncode(flipped)), null, `byte ${index}`);
  }
  assert.equal(await signer.decrypt('purpose-a', await signer.seal('purpose-a', payload)), null, 'a signed-only value');
  assert.equal(await signer.unseal('purpose-a', encrypted), null, 'nor is an encrypted value a signed one');
  for (const junk of ['', '.', 'a.b.c', 'x'.repeat(5000), 'AAAA', '%%%', 'A'.repeat(40)]) assert.equal(await signer.decrypt('purpose-a', junk), null, junk);
});

test('base64url helpers', () => {
  const bytes = new Uint8Array([0, 255, 62, 63, 1]);
  assert.deepEqual(base64UrlDecode(base64UrlEncode(bytes)), bytes);
  assert.equal(base64UrlDecode('a+b'), null);
});

test('member tokens carry the member and its roles and expire', async () => {
  const token = await signMemberToken('k', { memberId: '42', roles: ['ROLE_A'] });
  assert.deepEqual(await verifyMemberToken('k', token), { memberId: '42', roles: ['ROLE_A'] });
  assert.equal(await verifyMemberToken('k', await signMemberToken('k', { memberId: '42', expiresIn: -5 })), null);
  assert.equal(await verifyMemberToken('other', token), null);
  await assert.rejects(signMemberToken('k', { memberId: '' }), /memberId/);
});

test('the firewall map matches decoded paths in order', () => {
  const map = new FirewallMap();
  assert.equal(map.match('/_profiler/abc')!.name, 'dev');
  assert.equal(map.match('/_profiler')!.name, 'main', 'no trailing slash: not the dev pattern');
  assert.equal(map.match('/admin/users')!.name, 'admin');
  assert.equal(map.match('/%61dmin/users')!.name, 'admin', 'percent-encoded spelling');
  assert.equal(map.match('/administrator')!.name, 'main');
  assert.equal(map.match('/%E0%A4%A')!.name, 'main', 'malformed escapes do not throw');
  assert.deepEqual(map.statefulContexts(), ['admin', 'main']);
  assert.throws(() => new FirewallMap([{ name: 'a' }, { name: 'a' }]), /more than once/);
});

test('the firewall map answers the same for a path asked again, and for paths past the remembered ones', () => {
  const map = new FirewallMap([
    { name: 'api', pattern: /^\/api\//g, stateless: true },
    { name: 'main' },
  ]);
  for (let round = 0; round < 3; round++) {
    assert.equal(map.match('/api/x')!.name, 'api', 'a g flag in the pattern does not make answers alternate');
    assert.equal(map.match('/%61pi/x')!.name, 'api');
    assert.equal(map.match('/apix')!.name, 'main');
  }
  for (let i = 0; i < 400; i++) assert.equal(map.match(`/api/item/${i}`)!.name, 'api');
  assert.equal(map.match('/api/late')!.name, 'api');
  assert.equal(map.match('/late')!.name, 'main');
  const long = '/api/' + 'x'.repeat(5000);
  assert.equal(map.match(long)!.name, 'api');
  assert.equal(map.match(long)!.name, 'api');
  const partial = new FirewallMap([{ name: 'only', pattern: '^/only' }]);
  assert.equal(partial.match('/other'), null);
  assert.equal(partial.match('/other'), null, 'no firewall: null, also when asked again');
});

test('isGranted: roles, ROLE_USER for every member, authentication attributes', () => {
  const member = { memberId: '1', irmsToken: 't', roles: ['ROLE_ADMIN'], authenticatedBy: 'session' as const };
  const remembered = { ...member, authenticatedBy: 'remember_me' as const };
  assert.ok(isGranted(member, 'ROLE_ADMIN'));
  assert.ok(isGranted(member, 'ROLE_USER'));
  assert.ok(!isGranted(member, 'ROLE_OTHER'));
  assert.ok(isGranted(null, 'PUBLIC_ACCESS'));
  assert.ok(!isGranted(null, 'ROLE_USER'));
  assert.ok(isGranted(member, 'IS_AUTHENTICATED_FULLY'));
  assert.ok(!isGranted(remembered, 'IS_AUTHENTICATED_FULLY'));
  assert.ok(isGranted(remembered, 'IS_AUTHENTICATED_REMEMBERED'));
});

test('regression: a token whose last character differed only in its unused bits still verified (the bearer test failed when a tampered token kept its bytes)', async () => {
  const signer = new Signer('test-secret');
  const bytes = new Uint8Array(32).fill(7);
  const canonical = base64UrlEncode(bytes);
  assert.deepEqual(base64UrlDecode(canonical), bytes);
  // 32 bytes: 43 characters, the last one carrying 4 bits and 2 unused ones.
  const last = canonical[canonical.length - 1]!;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const sibling = alphabet[alphabet.indexOf(last) | 1]!;
  assert.notEqual(sibling, last);
  assert.equal(base64UrlDecode(canonical.slice(0, -1) + sibling), null, 'another spelling of the same bytes is refused');
  // A sealed value ends with its 32-byte HMAC: 43 characters, the last with 2 unused bits.
  const sealed = await signer.seal('purpose', { a: 1 });
  const respelled = sealed.slice(0, -1) + alphabet[alphabet.indexOf(sealed[sealed.length - 1]!) | 1]!;
  assert.notEqual(respelled, sealed);
  assert.equal(await signer.unseal('purpose', respelled), null);
  assert.deepEqual(await signer.unseal('purpose', sealed), { a: 1 });
});
