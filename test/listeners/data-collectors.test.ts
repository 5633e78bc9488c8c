import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, listener, type KernelRequest, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  {
    name: 'member_page',
    path: '/members/:id',
    controller: function showMember(r: KernelRequest) {
      r.getSession().set('cart', ['apple']);
      r.getSession().set('api_token', 'very-secret');
      return HttpResponse.text('member');
    },
  },
  { name: 'go', path: '/go', controller: () => HttpResponse.redirect('http://localhost/members/1', 302) },
];

function capture(debug: boolean) {
  let collected: Record<string, unknown> | null = null;
  const { app } = testApp({
    routes,
    ...(debug ? {} : { env: 'prod', debug: false }),
    listeners: [{ hook: 'kernel.finish_request', listener: listener('Test::capture', 'capture', (e) => void (collected = { ...e.request.collected })) }],
  });
  return { app, collected: () => collected as Record<string, any> | null };
}

test('RouterDataCollector and RequestDataCollector fill request.collected (secrets masked)', async () => {
  const { app, collected } = capture(true);
  await send(app, '/members/7?x=1', { headers: { 'accept-language': 'en' } });
  const c = collected()!;
  assert.deepEqual(c.router, { route: 'member_page', routeParams: { id: '7' }, controller: 'showMember' });
  const req = c.request;
  assert.equal(req.controller, 'showMember');
  assert.equal(req.route, 'member_page');
  assert.deepEqual(req.routeParams, { id: '7' });
  assert.equal(req.method, 'GET');
  assert.equal(req.pathInfo, '/members/7');
  assert.equal(req.locale, 'en');
  assert.deepEqual(req.sessionAttributes, { cart: ['apple'], api_token: '***' });
  assert.equal(req.redirect, undefined);
});

test('the collectors also describe error and redirect responses', async () => {
  const { app, collected } = capture(true);
  await send(app, '/nowhere');
  assert.equal(collected()!.router, undefined, 'no controller phase for a 404');
  assert.equal(collected()!.request.route, '');
  assert.equal(collected()!.request.sessionAttributes, null);
  await send(app, '/go');
  assert.deepEqual(collected()!.request.redirect, { status: 302, location: 'http://localhost/members/1' });
});

test('non-debug mode collects nothing', async () => {
  const { app, collected } = capture(false);
  await send(app, '/members/7');
  assert.deepEqual(collected(), {});
});
