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

test('regression: a body over BODY_LIMIT was accepted (200) when the route never read it; a declared length over the limit is a 413 before routing', async () => {
  let ran = false;
  const { app, lines } = testApp({ environment: { BODY_LIMIT: '1kb' }, routes: [{ name: 'page', path: '/page', controller: () => { ran = true; return HttpResponse.text('page'); } }] });
  const pulled = { bytes: 0 };
  const body = new ReadableStream<Uint8Array>({ pull(c) { pulled.bytes += 512; c.enqueue(new Uint8Array(512)); } }, { highWaterMark: 0 });
  const r = await app.handle({
    method: 'POST', target: '/page', scheme: 'http', fallbackHost: 'localhost', remoteAddress: '127.0.0.1', protocol: 'HTTP/1.1',
    header: (n) => ({ host: 'localhost', 'content-type': 'application/octet-stream', 'content-length': '50000000' } as Record<string, string>)[n] ?? null,
    headers: () => [['host', 'localhost'], ['content-type', 'application/octet-stream'], ['content-length', '50000000']], body: () => body,
  });
  assert.equal(r.response.status, 413);
  assert.equal(decodeURIComponent(r.response.headers.get('x-debug-exception') ?? ''), 'Request body of 50000000 bytes exceeds the limit of 1024 bytes.');
  assert.equal(ran, false, 'the controller never ran');
  assert.equal(pulled.bytes, 0, 'nothing was read');
  assert.ok(!lines.some((l) => l.includes('Matched route')), 'routing did not run');
  // Within the limit, an unread body changes nothing.
  const small = await send(app, '/page', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(1000) });
  assert.equal(small.status, 200);
});

test('regression: a non-ASCII Host was shown garbled in "Invalid Host" (its UTF-8 bytes read as Latin-1, then lower-cased); it is shown as sent', async () => {
  const { app } = testApp({ routes });
  const asSent = (text: string) => Buffer.from(text, 'utf8').toString('latin1'); // what Node and Fetch hand over
  for (const [host, shown] of [['évil.com', 'évil.com'], ['ÉVIL.Com', 'Évil.com'], ['bücher.example', 'bücher.example']]) {
    const r = await send(app, '/whoami', { headers: { host: asSent(host!) } });
    assert.equal(r.status, 400, host);
    assert.equal(decode(r), `Invalid Host "${shown}".`);
    // The page writes characters beyond ASCII as references (it stays ASCII).
    const escaped = shown!.replace(/[^\x00-\x7f]/gu, (c) => `&#x${c.codePointAt(0)!.toString(16).toUpperCase()};`);
    assert.ok((await r.text()).includes(`Invalid Host &quot;${escaped}&quot;.`), 'page');
  }
  // Bytes that are not UTF-8 stay as they came.
  const latin = await send(app, '/whoami', { headers: { host: 'caf\u00e9.test' } });
  assert.equal(decode(latin), 'Invalid Host "caf\u00e9.test".');
});
