// Production controller plans (src/app/controller-plan.ts): listeners idle for a route are left out
// of its controller hooks — never one that would have acted.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp, type AppOptions } from '../../src/app/create-app.ts';
import { HttpResponse } from '../../src/http/response.ts';
import type { KernelRequest } from '../../src/http/request.ts';
import { listener } from '../../src/kernel/hooks.ts';
import { signMemberToken, type RouteDefinition } from '../../src/index.ts';

const ok = () => HttpResponse.text('ok');
const routes: RouteDefinition[] = [
  { name: 'plain', path: '/plain/:id', controller: ok },
  { name: 'cached', path: '/cached', controller: ok, options: { cache: { maxAge: 30 } } },
  { name: 'converted', path: '/n/:id', controller: (r: KernelRequest) => HttpResponse.json({ id: r.attributes.get('id') }), options: { converters: { id: 'int' } } },
  { name: 'guarded', path: '/guarded', controller: ok, options: { isGranted: 'ROLE_ADMIN' } },
  { name: 'secured', path: '/secured', controller: ok, options: { security: () => false } },
  { name: 'login', path: '/login-only', controller: ok, options: { requiresLogin: true } },
  { name: 'by_default', path: '/by-default', controller: ok, defaults: { _is_granted: 'ROLE_ADMIN' } },
  { name: 'by_variable', path: '/by-variable/:_template', controller: () => ({}) },
];

function prod(extra: Partial<AppOptions> = {}) {
  return createApp({ env: 'prod', debug: false, logSink: () => {}, environment: {}, routes, renderTemplate: () => '<p>t</p>', ...extra });
}

/** The listener ids of a route's planned controller hooks (null: no plan, the full tables run). */
const planned = (app: ReturnType<typeof prod>, name: string) => {
  const request = { attributes: { get: (k: string) => (k === '_route' ? name : undefined) } } as unknown as KernelRequest;
  const hooks = app.kernel.plan?.(request);
  return hooks ? [...hooks['kernel.controller'], ...hooks['kernel.controller_arguments']].map((l) => l.id) : null;
};

test('a route without options skips the eight listeners that would do nothing for it', () => {
  const ids = planned(prod(), 'plain');
  assert.deepEqual(ids, ['LoginListener::setup', 'PathInfoListener::onKernelController']);
});

test('an option keeps the listeners that act on it', () => {
  const app = prod();
  assert.deepEqual(planned(app, 'cached'), ['LoginListener::setup', 'PathInfoListener::onKernelController', 'ControllerListener::onKernelController', 'HttpCacheListener::onKernelController']);
  assert.ok(planned(app, 'converted')!.includes('ParamConverterListener::onKernelController'));
  assert.ok(planned(app, 'guarded')!.includes('IsGrantedListener::onKernelControllerArguments'));
  assert.ok(planned(app, 'secured')!.includes('SecurityListener::onKernelControllerArguments'));
  assert.ok(planned(app, 'login')!.includes('LoginListener::check'));
  assert.ok(planned(app, 'by_default')!.includes('IsGrantedListener::onKernelControllerArguments'), 'an attribute set by a route default');
  assert.ok(planned(app, 'by_variable')!.includes('TemplateListener::onKernelController'), 'an attribute set by a path variable');
});

test('production answers with a plan are the ones the listeners give', async () => {
  const app = prod();
  const get = async (path: string, headers: Record<string, string> = {}) => app.fetch(new Request('http://localhost' + path, { headers }));
  assert.equal((await get('/plain/1')).status, 200);
  assert.equal((await get('/cached')).headers.get('cache-control'), 'max-age=30, private');
  assert.deepEqual(await (await get('/n/42')).json(), { id: 42 });
  assert.equal((await get('/n/x')).status, 404);
  assert.equal((await get('/guarded')).status, 401);
  assert.equal((await get('/by-default')).status, 401);
  const member = await signMemberToken(app, { memberId: 'm', roles: ['ROLE_USER'] });
  assert.equal((await get('/secured', { authorization: `Bearer ${member}` })).status, 403);
  assert.equal((await get('/login-only', { accept: 'application/json' })).status, 401);
  assert.equal(await (await get('/by-variable/x')).text(), '<p>t</p>');
});

test('with a listener of its own, the app has no plan: a user listener may set what the skipped ones read', async () => {
  const app = prod({
    listeners: [{ hook: 'kernel.request', listener: listener('App::guard', 'guard', (e) => void e.request.attributes.set('_is_granted', 'ROLE_ADMIN')) }],
  });
  assert.equal(planned(app, 'plain'), null);
  assert.equal((await app.fetch(new Request('http://localhost/plain/1'))).status, 401);
});

test('debug mode has no plan: every listener of the contract tables is called', async () => {
  const app = createApp({ env: 'dev', debug: true, logSink: () => {}, environment: {}, routes });
  assert.equal(app.kernel.plan, null);
});
