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
  assert.equal(req.statusCode, 200);
  assert.equal(req.responseHeaders['content-type'], 'text/plain; charset=UTF-8');
  assert.deepEqual(req.sessionAttributes, { cart: ['apple'], api_token: '***' });
  assert.equal(req.redirect, undefined);
});

test('the collectors also describe error and redirect responses', async () => {
  const { app, collected } = capture(true);
  await send(app, '/nowhere');
  assert.equal(collected()!.router, undefined, 'no controller phase for a 404');
  assert.equal(collected()!.request.statusCode, 404);
  assert.equal(collected()!.request.sessionAttributes, null);
  await send(app, '/go');
  assert.deepEqual(collected()!.request.redirect, { status: 302, location: 'http://localhost/members/1' });
});

test('Set-Cookie values are masked in the collected response headers', async () => {
  const withCookie: RouteDefinition[] = [{ name: 'c', path: '/c', controller: () => { const r = HttpResponse.text('c'); r.headers.setCookie('token', 'abcdef'); return r; } }];
  let seen: Record<string, any> | null = null;
  const { app } = testApp({ routes: withCookie, listeners: [{ hook: 'kernel.finish_request', listener: listener('Test::capture', 'capture', (e) => void (seen = e.request.collected.request as Record<string, any>)) }] });
  await send(app, '/c');
  assert.deepEqual(seen!.responseHeaders['set-cookie'], ['token=***; path=/; httponly; samesite=lax']);
});

test('non-debug mode collects nothing', async () => {
  const { app, collected } = capture(false);
  await send(app, '/members/7');
  assert.deepEqual(collected(), {});
});

test('the collected response headers are the response\'s headers as an object, every header kept, cookie values masked', async () => {
  const many: RouteDefinition[] = [
    {
      name: 'h',
      path: '/h',
      controller: () => {
        const r = HttpResponse.text('h', 200, { 'x-b': '2', 'x-a': '1' });
        r.headers.append('x-a', 'again');
        r.headers.set('__proto__', 'own');
        r.headers.setCookie('one', 'secret-1');
        r.headers.setCookie('two', 'secret-2');
        return r;
      },
    },
  ];
  let seen: Record<string, any> | null = null;
  let expected: Record<string, unknown> | null = null;
  const { app } = testApp({
    routes: many,
    listeners: [
      {
        hook: 'kernel.finish_request',
        listener: listener('Test::capture', 'capture', (e) => {
          seen = e.request.collected.request as Record<string, any>;
          expected = (e.request.attributes.get('_test_headers') as () => Record<string, unknown>)();
        }),
      },
      { hook: 'kernel.response', listener: listener<'kernel.response'>('Test::snapshot', 'snapshot', (e) => void e.request.attributes.set('_test_headers', () => e.response.headers.toObject())) },
    ],
  });
  await send(app, '/h');
  const headers = seen!.responseHeaders as Record<string, unknown>;
  assert.ok(Object.hasOwn(headers, '__proto__'));
  const all = expected! as Record<string, unknown>;
  // Later kernel.response listeners add the debug headers: the collector saw the others, in order.
  assert.deepEqual(Object.keys(headers), Object.keys(all).filter((k) => Object.hasOwn(headers, k)));
  for (const key of ['x-b', 'x-a', 'content-type', '__proto__', 'cache-control']) assert.equal(headers[key], all[key], key);
  assert.equal(headers['x-a'], '1, again');
  assert.deepEqual(headers['set-cookie'], ['one=***; path=/; httponly; samesite=lax', 'two=***; path=/; httponly; samesite=lax']);
});
