import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { IpMatcher } from '../../src/http/ip.ts';
import { send, testApp } from '../pipeline/harness.ts';
import { kernelRequest } from '../support/request.ts';

const routes: RouteDefinition[] = [{ name: 'whoami', path: '/whoami', controller: (r) => HttpResponse.json({ ip: r.getClientIp(), ips: r.getClientIps() }) }];

test('regression: a forwarded IPv6 address with a zone (fe80::1%<text>) put arbitrary text into getClientIp; PHP\'s FILTER_VALIDATE_IP refuses it, as leading zeros and brackets', async () => {
  const { app } = testApp({ env: 'prod', routes, trustedProxies: ['10.0.0.0/8'] });
  const through = async (headers: Record<string, string>) => (await send(app, '/whoami', { headers, remoteAddress: '10.0.0.1' })).json();
  assert.deepEqual(await through({ 'x-forwarded-for': 'fe80::1%<svg/onload=alert(1)>' }), { ip: '10.0.0.1', ips: ['10.0.0.1'] });
  assert.deepEqual(await through({ forwarded: 'for="[fe80::1%<script>x</script>]:80"' }), { ip: '10.0.0.1', ips: ['10.0.0.1'] });
  assert.deepEqual(await through({ 'x-forwarded-for': '203.0.113.7, fe80::1%eth0' }), { ip: '203.0.113.7', ips: ['203.0.113.7'] }, 'the invalid entry is left out, the next one is the client');

  const ips = (xff: string) => kernelRequest({ headers: { 'x-forwarded-for': xff }, remoteAddress: '10.0.0.1' }, { trustedProxies: new IpMatcher(['10.0.0.0/8']) }).getClientIps();
  for (const invalid of ['010.0.0.1', '1.2.3.04', '1::2:3:4:5:6:7:8', '::ffff:01.2.3.4', '1.2.3', '12345::1', '[fe80::1%eth0]']) {
    assert.deepEqual(ips(invalid), ['10.0.0.1'], invalid);
  }
  for (const valid of ['0.0.0.0', '203.0.113.7', '::', '::1', '1::', '2001:db8::1', '1:2:3:4:5:6:7::', '::ffff:203.0.113.7', '2001:0DB8:0000::0001']) {
    assert.deepEqual(ips(valid), [valid], valid);
  }
  assert.deepEqual(ips('[2001:db8::1]:443'), ['2001:db8::1'], 'brackets and port are cut before the check, as Symfony cuts them');
});
