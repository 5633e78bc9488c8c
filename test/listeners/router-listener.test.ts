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
