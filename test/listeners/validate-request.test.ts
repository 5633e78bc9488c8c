import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  { name: 'whoami', path: '/whoami', controller: (r) => HttpResponse.json({ uri: r.getUri(), ip: r.getClientIp(), secure: r.isSecure(), host: r.getHost() }) },
];
const decode = (r: Response) => decodeURIComponent(r.headers.get('x-debug-exception') ?? '');

test('an invalid Host is a 400 before anything else runs', async () => {
  const { app, lines } = testApp({ routes });
  for (const host of ['a b', 'evil.com/x?', 'trusted@evil.com', '..', '<svg/onload=alert(1)>']) {
    lines.length = 0;
    const r = await send(app, '/whoami', { headers: { host } });
    assert.equal(r.status, 400, host);
    assert.equal(decode(r), `Invalid Host "${host.toLowerCase()}".`);
    assert.ok(!lines.some((l) => l.includes('Matched route')), 'routing did not run');
  }
});

test('TRUSTED_HOSTS: other hosts are untrusted (400)', async () => {
  const { app } = testApp({ routes, environment: { TRUSTED_HOSTS: '^localhost$,^example\\.com$' } });
  assert.equal((await send(app, '/whoami')).status, 200);
  assert.equal((await send(app, '/whoami', { headers: { host: 'example.com' } })).status, 200);
  const r = await send(app, '/whoami', { headers: { host: 'evil.com' } });
  assert.equal(r.status, 400);
  assert.equal(decode(r), 'Untrusted Host "evil.com".');
});

test('without trusted proxies, forwarded headers change nothing (URL, IP, scheme)', async () => {
  const { app } = testApp({ routes });
  const r = await send(app, '/whoami?b=1', {
    remoteAddress: '10.0.0.1',
    headers: { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.com', 'x-forwarded-proto': 'https', 'x-forwarded-port': '8443', forwarded: 'for=6.6.6.6;host=evil.com;proto=https' },
  });
  assert.deepEqual(await r.json(), { uri: 'http://localhost/whoami?b=1', ip: '10.0.0.1', secure: false, host: 'localhost' });
});

test('behind a trusted proxy, forwarded headers apply; conflicting Forwarded and X-Forwarded-* are a 400', async () => {
  const { app } = testApp({ routes, environment: { TRUSTED_PROXIES: '10.0.0.0/8' } });
  const ok = await send(app, '/whoami', { remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': '1.2.3.4', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'example.com' } });
  assert.deepEqual(await ok.json(), { uri: 'https://example.com/whoami', ip: '1.2.3.4', secure: true, host: 'example.com' });
  const conflict = await send(app, '/whoami', { remoteAddress: '10.0.0.1', headers: { 'x-forwarded-for': '1.2.3.4', forwarded: 'for=5.6.7.8' } });
  assert.equal(conflict.status, 400);
  assert.equal(
    decode(conflict),
    'The request has both a trusted "FORWARDED" header and a trusted "X_FORWARDED_FOR" header, conflicting with each other. You should either configure your proxy to remove one of them, or configure your project to distrust the offending one.',
  );
  // From an untrusted peer the same headers are ignored.
  const untrusted = await send(app, '/whoami', { remoteAddress: '192.168.1.1', headers: { 'x-forwarded-for': '1.2.3.4', forwarded: 'for=5.6.7.8' } });
  assert.equal((await untrusted.json()).ip, '192.168.1.1');
});
