import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type KernelRequest } from '../../src/index.ts';
import { records, send, testApp } from '../pipeline/harness.ts';

function matchedRoute(lines: string[]) {
  return records(lines).find((r) => r.message.startsWith('Matched route'));
}

test('"Matched route" logs the route parameters with _route and _controller, as Symfony does', async () => {
  const { app, lines } = testApp({
    logFormat: 'json',
    logLevel: 'info',
    routes: [{ name: 'member', path: '/members/:id/:tab', controller: function showMember(_r: KernelRequest) { return HttpResponse.text('ok'); } }],
  });
  await send(app, '/members/7/orders?x=1');
  const record = matchedRoute(lines)!;
  assert.equal(record.message, 'Matched route "member".');
  assert.equal(record.channel, 'request');
  assert.deepEqual(record.context.route_parameters, { id: '7', tab: 'orders', _route: 'member', _controller: 'showMember' });
  assert.equal(record.context.request_uri, 'http://localhost/members/7/orders?x=1');
  assert.equal(record.context.method, 'GET');
});

test('regression: a raw emoji in the target of a trailing-slash redirect (as Deno hands it over) was a 500 URIError; now a 301 with it percent-encoded', async () => {
  const { app, lines } = testApp({ routes: [{ name: 'dir', path: '/dir/', methods: ['GET'], controller: () => HttpResponse.text('dir') }] });
  const source = (target: string) => ({
    method: 'GET', target, scheme: 'http' as const, fallbackHost: 'localhost', remoteAddress: '127.0.0.1', protocol: 'HTTP/1.1',
    header: (n: string) => (n === 'host' ? 'localhost' : null), headers: () => [['host', 'localhost']] as [string, string][], body: () => null,
  });
  const cases: [string, string][] = [
    ['/dir?q=\u{1F600}', 'http://localhost/dir/?q=%F0%9F%98%80'],
    ['/dir?q=caf\u00e9 x', 'http://localhost/dir/?q=caf%C3%A9%20x'],
    ['/dir?q=\ud800', 'http://localhost/dir/?q=%EF%BF%BD'],
  ];
  for (const [target, location] of cases) {
    const { response } = await app.handle(source(target));
    assert.equal(response.status, 301, target);
    assert.equal(response.headers.get('location'), location);
  }
  assert.ok(!lines.some((l) => l.includes('CRITICAL') || l.includes('URIError')), lines.join('\n'));
});
