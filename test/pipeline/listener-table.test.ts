import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listener } from '../../src/index.ts';
import { records, send, testApp, tick } from './harness.ts';

/** CONTRACT §3's five tables, in order: 10 + 9 + 3 + 12 + 5 = 39 listener calls. */
const CONTRACT_ORDER: [string, string][] = [
  ['kernel.request', 'DebugHandlersListener::configure'],
  ['kernel.request', 'ValidateRequestListener::onKernelRequest'],
  ['kernel.request', 'SessionListener::onKernelRequest'],
  ['kernel.request', 'JsonRequestTransformerListener::onKernelRequest'],
  ['kernel.request', 'LocaleListener::setDefaultLocale'],
  ['kernel.request', 'RouterListener::onKernelRequest'],
  ['kernel.request', 'LocaleListener::onKernelRequest'],
  ['kernel.request', 'LocaleAwareListener::onKernelRequest'],
  ['kernel.request', 'FirewallListener::configureLogoutUrlGenerator'],
  ['kernel.request', 'FirewallListener::onKernelRequest'],
  ['kernel.controller', 'LoginListener::setup'],
  ['kernel.controller', 'PathInfoListener::onKernelController'],
  ['kernel.controller', 'RouterDataCollector::onKernelController'],
  ['kernel.controller', 'LoginListener::check'],
  ['kernel.controller', 'RequestDataCollector::onKernelController'],
  ['kernel.controller', 'ControllerListener::onKernelController'],
  ['kernel.controller', 'ParamConverterListener::onKernelController'],
  ['kernel.controller', 'HttpCacheListener::onKernelController'],
  ['kernel.controller', 'TemplateListener::onKernelController'],
  ['kernel.controller_arguments', 'ErrorListener::onControllerArguments'],
  ['kernel.controller_arguments', 'SecurityListener::onKernelControllerArguments'],
  ['kernel.controller_arguments', 'IsGrantedListener::onKernelControllerArguments'],
  ['kernel.response', 'ContextListener::onKernelResponse'],
  ['kernel.response', 'ContextListener::onKernelResponse'],
  ['kernel.response', 'ResponseListener::onKernelResponse'],
  ['kernel.response', 'RequestDataCollector::onKernelResponse'],
  ['kernel.response', 'HttpCacheListener::onKernelResponse'],
  ['kernel.response', 'RememberMeResponseListener::onKernelResponse'],
  ['kernel.response', 'ProfilerListener::onKernelResponse'],
  ['kernel.response', 'ErrorListener::removeCspHeader'],
  ['kernel.response', 'WebDebugToolbarListener::onKernelResponse'],
  ['kernel.response', 'DisallowRobotsIndexingListener::onResponse'],
  ['kernel.response', 'SessionListener::onKernelResponse'],
  ['kernel.response', 'StreamedResponseListener::onKernelResponse'],
  ['kernel.finish_request', 'LocaleListener::onKernelFinishRequest'],
  ['kernel.finish_request', 'RouterListener::onKernelFinishRequest'],
  ['kernel.finish_request', 'SessionListener::onFinishRequest'],
  ['kernel.finish_request', 'FirewallListener::onKernelFinishRequest'],
  ['kernel.finish_request', 'LocaleAwareListener::onKernelFinishRequest'],
];

const FIVE_HOOKS = new Set(['kernel.request', 'kernel.controller', 'kernel.controller_arguments', 'kernel.response', 'kernel.finish_request']);
const NOTIFIED = /^Notified event "([^"]+)" to listener "([^"]+)"\.$/;

function notified(lines: string[]): [string, string][] {
  const out: [string, string][] = [];
  for (const r of records(lines)) {
    if (r.channel !== 'event') continue;
    const m = NOTIFIED.exec(r.message);
    if (m) out.push([m[1], m[2]]);
  }
  return out;
}

test('GET /_profiler/<token> (LOG_FORMAT=json LOG_LEVEL=debug) notifies exactly the 39 listeners of the contract, in order', async () => {
  const { app, lines } = testApp({ environment: { APP_ENV: 'dev', LOG_FORMAT: 'json', LOG_LEVEL: 'debug' } });
  const response = await send(app, '/_profiler/abc123');
  assert.equal(response.status, 200);
  await response.text();
  await tick();
  const calls = notified(lines).filter(([hook]) => FIVE_HOOKS.has(hook));
  assert.equal(calls.length, 39);
  assert.deepEqual(calls, CONTRACT_ORDER);
  // The event records carry the hook and listener in their context too.
  const first = records(lines).find((r) => r.channel === 'event')!;
  assert.equal(first.level_name, 'DEBUG');
  assert.deepEqual(first.context, { event: 'kernel.request', listener: 'DebugHandlersListener::configure' });

  const app_ = records(lines).filter((r) => r.channel === 'app');
  assert.equal(app_.length, 1);
  assert.equal(app_[0].level_name, 'INFO');
  assert.deepEqual(app_[0].context, { irms_token: '', member_id: '' });
  assert.ok(records(lines).some((r) => r.channel === 'request' && r.level_name === 'INFO' && r.message === 'Matched route "_profiler".'));
  // kernel.terminate: the profile is stored after the response.
  assert.ok(notified(lines).some(([hook, l]) => hook === 'kernel.terminate' && l === 'ProfilerListener::onKernelTerminate'));
});

test('a 404 runs kernel.request only up to RouterListener::onKernelRequest and no controller hooks', async () => {
  const { app, lines } = testApp({ environment: { APP_ENV: 'dev', LOG_FORMAT: 'json', LOG_LEVEL: 'debug' } });
  const response = await send(app, '/robots.txt');
  assert.equal(response.status, 404);
  await tick();
  const calls = notified(lines);
  assert.deepEqual(
    calls.filter(([hook]) => hook === 'kernel.request').map(([, l]) => l),
    CONTRACT_ORDER.slice(0, 6).map(([, l]) => l),
  );
  assert.ok(!calls.some(([hook]) => hook === 'kernel.controller' || hook === 'kernel.controller_arguments'));
  assert.deepEqual(
    calls.filter(([hook]) => hook === 'kernel.exception').map(([, l]) => l),
    ['ProfilerListener::onKernelException', 'ErrorListener::logKernelException', 'RouterListener::onKernelException', 'ErrorListener::onKernelException'],
  );
  assert.deepEqual(calls.filter(([hook]) => hook === 'kernel.response').map(([, l]) => l), CONTRACT_ORDER.filter(([h]) => h === 'kernel.response').map(([, l]) => l));
  assert.equal(calls.filter(([hook]) => hook === 'kernel.finish_request').length, 5);
  // No login setup ran, so no `app` record.
  assert.ok(!records(lines).some((r) => r.channel === 'app'));
});

test('non-debug mode: the debug-only listeners are absent from the arrays', () => {
  const { app } = testApp({ env: 'prod', debug: false });
  const ids = (hook: keyof typeof app.kernel.hooks) => app.kernel.hooks[hook].map((l) => l.id);
  const debugOnly = ['DebugHandlersListener::configure', 'RouterDataCollector::onKernelController', 'RequestDataCollector::onKernelController', 'RequestDataCollector::onKernelResponse', 'ProfilerListener::onKernelResponse', 'ErrorListener::removeCspHeader', 'WebDebugToolbarListener::onKernelResponse', 'ProfilerListener::onKernelException', 'ProfilerListener::onKernelTerminate', 'RouterListener::onKernelException'];
  const all = Object.keys(app.kernel.hooks).flatMap((h) => ids(h as keyof typeof app.kernel.hooks));
  for (const id of debugOnly) assert.ok(!all.includes(id), `${id} is absent`);
  const expected = (hook: string) => CONTRACT_ORDER.filter(([h, l]) => h === hook && !debugOnly.includes(l)).map(([, l]) => l);
  for (const hook of ['kernel.request', 'kernel.controller', 'kernel.controller_arguments', 'kernel.response', 'kernel.finish_request'] as const) {
    assert.deepEqual(ids(hook), expected(hook), hook);
  }
  assert.deepEqual(ids('kernel.exception'), ['ErrorListener::logKernelException', 'ErrorListener::onKernelException']);
  assert.deepEqual(ids('kernel.terminate'), []);
  assert.deepEqual(ids('kernel.view'), ['TemplateListener::onKernelView']);
});

test('one ContextListener per stateful firewall context; the robots listener can be turned off', () => {
  const { app } = testApp({ firewalls: [{ name: 'dev', pattern: '^/_profiler/', security: false }, { name: 'api', pattern: '^/api/', stateless: true }, { name: 'main' }], disallowRobotsIndexing: false });
  const response = app.kernel.hooks['kernel.response'].map((l) => l.id);
  assert.equal(response.filter((id) => id === 'ContextListener::onKernelResponse').length, 1);
  assert.ok(!response.includes('DisallowRobotsIndexingListener::onResponse'));
});

test('user listeners go where they are placed; the built-in order is kept', async () => {
  const seen: string[] = [];
  const { app } = testApp({
    listeners: [
      { hook: 'kernel.request', listener: listener('App::afterRouting', 'test', () => void seen.push('after routing')), placement: { after: 'RouterListener::onKernelRequest' } },
      { hook: 'kernel.response', listener: listener('App::first', 'test', () => void seen.push('first response')), placement: { index: 0 } },
    ],
  });
  const ids = app.kernel.hooks['kernel.request'].map((l) => l.id);
  assert.equal(ids[ids.indexOf('RouterListener::onKernelRequest') + 1], 'App::afterRouting');
  assert.equal(app.kernel.hooks['kernel.response'][0].id, 'App::first');
  await send(app, '/_profiler/abc123');
  assert.deepEqual(seen, ['after routing', 'first response']);
});

test('regression: both ContextListener rows of kernel.response had the role of the first; the second is "firewall context save (the second stateful firewall context)" (CONTRACT §3)', () => {
  const { app } = testApp();
  const [first, second] = app.kernel.hooks['kernel.response'];
  assert.deepEqual([first!.id, first!.role], ['ContextListener::onKernelResponse', 'firewall context save']);
  assert.deepEqual([second!.id, second!.role], ['ContextListener::onKernelResponse', 'firewall context save (the second stateful firewall context)']);
});

test('regression: a listener added with a priority landed before or after every built-in one (they had none); it lands where Symfony\'s dispatcher puts it', async () => {
  const seen: string[] = [];
  const { app } = testApp({
    logLevel: 'warning',
    listeners: [
      { hook: 'kernel.request', listener: listener<'kernel.request'>('App::p20', 'test', (e) => void seen.push(`p20 route=${String(e.request.attributes.get('_route'))}`)), placement: { priority: 20 } },
      { hook: 'kernel.response', listener: listener<'kernel.response'>('App::m100', 'test', () => void seen.push('m100')), placement: { priority: -100 } },
    ],
    routes: [{ name: 'early', path: '/early', controller: () => new Response('ok') }],
  });
  const ids = (hook: 'kernel.request' | 'kernel.response') => app.kernel.hooks[hook].map((l) => l.id);
  const request = ids('kernel.request');
  // Symfony: RouterListener 32, then 20, then LocaleListener::onKernelRequest 16.
  assert.equal(request.indexOf('App::p20'), request.indexOf('RouterListener::onKernelRequest') + 1);
  assert.equal(request[request.indexOf('App::p20') + 1], 'LocaleListener::onKernelRequest');
  const response = ids('kernel.response');
  // Symfony: right after ProfilerListener (-100), before the -128 listeners.
  assert.equal(response.indexOf('App::m100'), response.indexOf('ProfilerListener::onKernelResponse') + 1);
  assert.equal((await send(app, '/early')).status, 200);
  assert.deepEqual(seen, ['p20 route=early', 'm100'], 'the route is known at priority 20');
});
