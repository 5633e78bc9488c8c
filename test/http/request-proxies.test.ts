import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConflictingHeadersException, HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { IpMatcher } from '../../src/http/ip.ts';
import { send, testApp } from '../pipeline/harness.ts';
import { kernelRequest } from '../support/request.ts';

const routes: RouteDefinition[] = [
  { name: 'reset', path: '/reset', controller: (r) => HttpResponse.json({ link: r.generateUrl('reset', { token: 't0k' }, { absolute: true }), ip: r.getClientIp(), ips: r.getClientIps(), secure: r.isSecure() }) },
];

/** What a client behind a typical proxy (10.0.0.1, which sets X-Forwarded-For and -Proto) can send through it. */
const throughProxy = { 'x-forwarded-for': '203.0.113.7', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example', forwarded: 'for=198.51.100.66' };

test('regression: TRUSTED_PROXIES believed X-Forwarded-Host and Forwarded with no way to turn them off (a client could pick the host of reset links); TRUSTED_HEADERS picks the set, Symfony 5.4\'s ignores them', async () => {
  const symfony = testApp({ env: 'prod', routes, trustedProxies: ['10.0.0.0/8'], trustedHeaders: ['x-forwarded-for', 'x-forwarded-port', 'x-forwarded-proto'] }).app;
  const r = await send(symfony, 'http://shop.example/reset', { headers: throughProxy, remoteAddress: '10.0.0.1' });
  assert.equal(r.status, 200, 'a Forwarded header that is not trusted conflicts with nothing');
  assert.deepEqual(await r.json(), { link: 'https://shop.example/reset?token=t0k', ip: '203.0.113.7', ips: ['203.0.113.7'], secure: true });
  const onlyForwarded = testApp({ env: 'prod', routes, trustedProxies: ['10.0.0.0/8'], trustedHeaders: ['forwarded'] }).app;
  const f = await (await send(onlyForwarded, 'http://shop.example/reset', { headers: throughProxy, remoteAddress: '10.0.0.1' })).json();
  assert.deepEqual([f.ip, f.secure, f.link], ['198.51.100.66', false, 'http://shop.example/reset?token=t0k'], 'only Forwarded read: no scheme or host from X-Forwarded-*');
  // CONTRACT §2's default is unchanged: every forwarded header is believed.
  const contract = testApp({ env: 'prod', routes, trustedProxies: ['10.0.0.0/8'] }).app;
  assert.equal((await send(contract, 'http://shop.example/reset', { headers: throughProxy, remoteAddress: '10.0.0.1' })).status, 400, 'Forwarded and X-Forwarded-For disagree');
  const { 'x-forwarded-for': _, ...withoutXff } = throughProxy;
  assert.equal((await (await send(contract, 'http://shop.example/reset', { headers: withoutXff, remoteAddress: '10.0.0.1' })).json()).link, 'https://evil.example/reset?token=t0k');
  // From the environment too.
  const fromEnv = testApp({ env: 'prod', routes, environment: { TRUSTED_PROXIES: '10.0.0.0/8', TRUSTED_HEADERS: 'X-Forwarded-For, x-forwarded-proto' } }).app;
  assert.equal((await (await send(fromEnv, 'http://shop.example/reset', { headers: throughProxy, remoteAddress: '10.0.0.1' })).json()).link, 'https://shop.example/reset?token=t0k');
});

test('regression: getClientIps() returned only the nearest untrusted address; it is the whole untrusted chain, nearest first, as Symfony\'s', () => {
  const ips = (xff: string, proxies = ['10.0.0.0/8']) => kernelRequest({ headers: { 'x-forwarded-for': xff }, remoteAddress: '10.0.0.1' }, { trustedProxies: new IpMatcher(proxies) }).getClientIps();
  assert.deepEqual(ips('1.1.1.1, 2.2.2.2'), ['2.2.2.2', '1.1.1.1']);
  assert.deepEqual(ips('1.1.1.1, 10.0.0.7, 2.2.2.2'), ['2.2.2.2', '1.1.1.1'], 'trusted proxies are left out wherever they are');
  assert.deepEqual(ips('10.0.0.5, 10.0.0.6'), ['10.0.0.5'], 'all trusted: the first trusted one');
  assert.deepEqual(ips('unknown'), ['10.0.0.1'], 'nothing forwarded: the peer');
  assert.deepEqual(ips('1.1.1.1, 2.2.2.2', ['REMOTE_ADDR']), ['2.2.2.2', '1.1.1.1']);
  assert.equal(kernelRequest({ headers: { 'x-forwarded-for': '1.1.1.1, 2.2.2.2' }, remoteAddress: '10.0.0.1' }, { trustedProxies: new IpMatcher(['10.0.0.0/8']) }).getClientIp(), '2.2.2.2', 'getClientIp is the nearest');
  assert.deepEqual(kernelRequest({ headers: { 'x-forwarded-for': '1.1.1.1' }, remoteAddress: '9.9.9.9' }, { trustedProxies: new IpMatcher(['10.0.0.0/8']) }).getClientIps(), ['9.9.9.9'], 'an untrusted peer: itself');
});

test('regression: Forwarded and X-Forwarded-For naming the same client through different trusted hops were a conflict (400); Symfony compares the two chains with trusted proxies left out', async () => {
  const { app } = testApp({ env: 'prod', routes, trustedProxies: ['10.0.0.0/8'] });
  const ask = (headers: Record<string, string>) => send(app, 'http://shop.example/reset', { headers, remoteAddress: '10.0.0.1' });
  const same = await ask({ 'x-forwarded-for': '203.0.113.7, 10.0.0.5', forwarded: 'for=203.0.113.7' });
  assert.equal(same.status, 200, 'the same client: no conflict');
  assert.deepEqual((await same.json()).ips, ['203.0.113.7']);
  const portsDiffer = await ask({ 'x-forwarded-for': '203.0.113.7:4711, 10.0.0.5', forwarded: 'for="[2001:db8::1]", for=203.0.113.7;proto=http' });
  assert.equal(portsDiffer.status, 400, 'a different chain is still a conflict');
  assert.equal((await ask({ 'x-forwarded-for': '203.0.113.7', forwarded: 'for=198.51.100.66' })).status, 400, 'different clients are still a conflict');
  // Symfony's fallback for a list with no untrusted address is the peer (or the first trusted one), and it is compared too.
  assert.equal((await ask({ 'x-forwarded-for': 'unknown', forwarded: 'for=203.0.113.7' })).status, 400, 'X-Forwarded-For gives the peer, Forwarded a client');
  assert.equal((await ask({ 'x-forwarded-for': '10.0.0.9', forwarded: 'for=10.0.0.9;host=shop.example' })).status, 200, 'both give the same trusted address');
});

test('regression: a Forwarded host without a port and an X-Forwarded-Port naming another were not a conflict; the host stands for the default port, as in Symfony', async () => {
  const { app } = testApp({ env: 'prod', routes, trustedProxies: ['10.0.0.0/8'] });
  const ask = (headers: Record<string, string>) => send(app, 'http://shop.example/reset', { headers, remoteAddress: '10.0.0.1' });
  assert.equal((await ask({ forwarded: 'host=shop.example', 'x-forwarded-port': '8443' })).status, 400);
  const debug = testApp({ routes, trustedProxies: ['10.0.0.0/8'] }).app;
  const shown = await send(debug, 'http://shop.example/reset', { headers: { forwarded: 'host=shop.example', 'x-forwarded-port': '8443' }, remoteAddress: '10.0.0.1' });
  assert.match(decodeURIComponent(shown.headers.get('x-debug-exception') ?? ''), /a trusted "X_FORWARDED_PORT" header, conflicting with each other/);
  const agree = await ask({ forwarded: 'host=shop.example:8443', 'x-forwarded-port': '8443' });
  assert.equal((await agree.json()).link, 'http://shop.example:8443/reset?token=t0k');
  assert.equal((await (await ask({ forwarded: 'host=shop.example', 'x-forwarded-port': '80' })).json()).link, 'http://shop.example/reset?token=t0k', 'the default port agrees');
  assert.equal((await (await ask({ forwarded: 'host=shop.example;proto=https', 'x-forwarded-port': '443' })).json()).link, 'https://shop.example/reset?token=t0k', 'https: 443 agrees');
  assert.equal((await ask({ forwarded: 'host=shop.example;proto=https', 'x-forwarded-port': '80' })).status, 400, 'https: 80 does not');
});

/** A request that came through the trusted proxy 10.0.0.1 with these headers. */
const proxied = (headers: Record<string, string>) => kernelRequest({ headers, remoteAddress: '10.0.0.1' }, { trustedProxies: new IpMatcher(['10.0.0.0/8']) });

test('regression: Forwarded was split at every comma and semicolon, quoted or not, so a quoted value could add a client address (host="x,for=6.6.6.6;y"); it is read with HeaderUtils::split, as Symfony reads it', () => {
  const forwarded = (value: string) => proxied({ forwarded: value });
  assert.deepEqual(forwarded('for=192.0.2.9;host="shop.example,for=6.6.6.6;y"').getClientIps(), ['192.0.2.9'], 'a quoted value is one value');
  assert.deepEqual(forwarded('for="192.0.2.\\9"').getClientIps(), ['192.0.2.9'], 'escapes are resolved');
  assert.deepEqual(forwarded('for=198.51.100.1;for=192.0.2.9').getClientIps(), ['192.0.2.9'], 'a parameter twice in one element: its last value');
  assert.deepEqual(forwarded('for=198.51.100.1, for=192.0.2.9').getClientIps(), ['192.0.2.9', '198.51.100.1'], 'one value per element');
  assert.equal(forwarded('for=192.0.2.9;host=shop."example"').getHost(), 'shop.example', 'quotes inside a value are dropped');
  assert.equal(forwarded('for=192.0.2.9;proto').isSecure(), true, "a parameter without a value is PHP's true, the string '1'");
});

test('regression: empty X-Forwarded-* values were dropped ("X-Forwarded-Proto: , https" was https); Symfony keeps them, so the first value is the empty one', () => {
  assert.equal(proxied({ 'x-forwarded-proto': ', https' }).isSecure(), false);
  assert.equal(proxied({ 'x-forwarded-proto': 'https, ' }).isSecure(), true);
  assert.deepEqual(proxied({ 'x-forwarded-for': '203.0.113.7, , 198.51.100.1' }).getClientIps(), ['198.51.100.1', '203.0.113.7'], 'an empty address is no address');
});

test('regression: a forwarded-header conflict was thrown on every read, so the 400\'s page, log and profile had no client address; it is thrown once (Symfony\'s isForwardedValid), then the client is 0.0.0.0 and other fields are not forwarded', () => {
  const request = proxied({ host: 'shop.example', 'x-forwarded-for': '203.0.113.7', 'x-forwarded-host': 'shop.example', forwarded: 'for=198.51.100.66;host=evil.example' });
  assert.throws(() => request.getClientIps(), ConflictingHeadersException);
  assert.deepEqual(request.getClientIps(), ['0.0.0.0', '10.0.0.1']);
  assert.equal(request.getClientIp(), '0.0.0.0');
  assert.equal(request.getHost(), 'shop.example', 'the host conflict after it is not thrown: the Host header, as no host was forwarded');
});

test('regression: IPv4-mapped IPv6 ranges (::ffff:10.0.0.0/104, ::ffff:0:0/96) were refused as trusted proxies; they are IPv6 ranges, matched as IpUtils matches them', () => {
  const mapped = new IpMatcher(['::ffff:10.0.0.0/104']);
  assert.equal(mapped.matches('::ffff:10.1.2.3'), true);
  assert.equal(mapped.matches('::FFFF:10.1.2.3'), true);
  assert.equal(mapped.matches('::ffff:11.0.0.1'), false);
  assert.equal(mapped.matches('10.1.2.3'), false, 'an IPv4 address is not in an IPv6 range (IpUtils::checkIp4)');
  assert.equal(new IpMatcher(['::ffff:0:0/96']).matches('::ffff:1.2.3.4'), true);
  assert.equal(new IpMatcher(['::/0']).matches('::ffff:1.2.3.4'), true, 'a mapped address is an IPv6 address');
  assert.equal(new IpMatcher(['::/0']).matches('1.2.3.4'), false);
  assert.equal(new IpMatcher(['10.0.0.0/8']).matches('::ffff:10.1.2.3'), true, 'a dual-stack listener\'s IPv4 peer is still in IPv4 ranges');
  assert.throws(() => new IpMatcher(['::ffff:10.0.0.0/129']), { message: 'Invalid trusted proxy "::ffff:10.0.0.0/129".' });
  const behindDualStack = kernelRequest({ headers: { 'x-forwarded-for': '1.2.3.4' }, remoteAddress: '::ffff:10.0.0.1' }, { trustedProxies: mapped });
  assert.equal(behindDualStack.getClientIp(), '1.2.3.4');
});

test('regression: contentType was documented as lower-case but kept the case sent ("Application/JSON")', () => {
  assert.equal(kernelRequest({ headers: { 'content-type': ' Application/JSON ; charset=x' } }).contentType, 'application/json');
});

test('regression: a Host or X-Forwarded-Port of port 0 made URLs like http://a.test:0/; Symfony reads :0 as no port (a PHP-falsy string)', () => {
  const proxied = { trustedProxies: new IpMatcher(['10.0.0.0/8']) };
  assert.equal(kernelRequest({ headers: { host: 'a.test:0' } }).getSchemeAndHttpHost(), 'http://a.test');
  assert.equal(kernelRequest({ headers: { host: 'a.test:0' } }).getPort(), 80);
  const viaProxy = kernelRequest({ headers: { host: 'a.test:8080', 'x-forwarded-port': '0', 'x-forwarded-proto': 'https' }, remoteAddress: '10.0.0.1' }, proxied);
  assert.equal(viaProxy.getPort(), 443);
  assert.equal(viaProxy.getSchemeAndHttpHost(), 'https://a.test');
  assert.equal(kernelRequest({ headers: { host: 'a.test:8080' } }).getSchemeAndHttpHost(), 'http://a.test:8080', 'other ports stay');
});
