// The createApp options beside AppConfig, checked when the app is built (src/app/option-checks.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkCreateAppOptions } from '../../src/app/option-checks.ts';
import { createApp, type AppOptions } from '../../src/app/create-app.ts';
import { HttpResponse } from '../../src/http/response.ts';
import { MemorySessionStore } from '../../src/session/store.ts';

const controller = () => HttpResponse.text('ok');

/** What a JavaScript caller could pass, and the error it gets. */
const REFUSED: [string, unknown, string][] = [
  ['routes', {}, 'createApp option "routes" must be an array of route definitions ({ name, path, controller, … }), got an object.'],
  ['routes', null, 'createApp option "routes" must be an array of route definitions ({ name, path, controller, … }), got null.'],
  ['routes', [{ name: 'a', path: '/a', controller }, 'b'], 'createApp option "routes" must be an array of route definitions ({ name, path, controller, … }), got "b" (a string) at index 1.'],
  ['listeners', {}, 'createApp option "listeners" must be an array of { hook, listener, placement? }, got an object.'],
  ['firewalls', {}, 'createApp option "firewalls" must be an array of firewalls ({ name, pattern?, security?, stateless?, lazy?, context?, logoutPath?, logoutTarget?, logoutCsrfTokenId?, loginPath?, customAuthenticators?, entryPoint?, accessDeniedHandler? }), got an object.'],
  ['accessControl', {}, 'createApp option "accessControl" must be an array of access control rules ({ path?, host?, methods?, ips?, port?, roles?, allowIf?, requiresChannel? }), got an object.'],
  ['localeAware', [{ locale: 'en' }], 'createApp option "localeAware" must be an array of services with a setLocale(locale) function, got an object at index 0.'],
  ['environment', 'prod', 'createApp option "environment" must be an object of variables (as process.env), got "prod" (a string).'],
  ['environment', null, 'createApp option "environment" must be an object of variables (as process.env), got null.'],
  ['logSink', 'stderr', 'createApp option "logSink" must be a function, got "stderr" (a string).'],
  ['verifyBearerToken', 'x', 'createApp option "verifyBearerToken" must be a function, got "x" (a string).'],
  ['refreshMember', {}, 'createApp option "refreshMember" must be a function, got an object.'],
  ['renderTemplate', true, 'createApp option "renderTemplate" must be a function, got true.'],
  ['sessionStore', {}, 'createApp option "sessionStore" must be a session store (read, write and destroy functions; touch optional), got an object whose "read" is undefined.'],
  ['sessionStore', { read() {}, write() {}, destroy: 'no' }, 'createApp option "sessionStore" must be a session store (read, write and destroy functions; touch optional), got an object whose "destroy" is "no" (a string).'],
  ['sessionStore', { read() {}, write() {}, destroy() {}, touch: 1 }, 'createApp option "sessionStore" must be a session store (read, write and destroy functions; touch optional), got an object whose "touch" is 1.'],
];

/** Well-formed values of the same options: accepted. */
const ACCEPTED: AppOptions = {
  routes: [{ name: 'a', path: '/a', controller }],
  listeners: [],
  firewalls: [{ name: 'main' }],
  accessControl: [{ path: '^/admin', roles: 'ROLE_ADMIN' }],
  localeAware: [{ setLocale() {} }],
  environment: {},
  logSink: () => {},
  verifyBearerToken: () => null,
  refreshMember: () => null,
  renderTemplate: () => '',
  sessionStore: new MemorySessionStore(),
};

describe('checkCreateAppOptions', () => {
  test('regression: createApp-only options of the wrong kind were not refused when the app was built', () => {
    for (const [name, value, message] of REFUSED) {
      assert.throws(() => checkCreateAppOptions({ [name]: value }), { message }, `${name}: ${String(value)}`);
    }
  });

  test('regression: createApp(null) failed reading "routes" of null and createApp("prod") as an unknown option "0"', () => {
    assert.throws(() => checkCreateAppOptions(null), { name: 'TypeError', message: 'createApp expects an options object, got null.' });
    assert.throws(() => checkCreateAppOptions('prod'), { name: 'TypeError', message: 'createApp expects an options object, got "prod" (a string).' });
    assert.throws(() => checkCreateAppOptions([]), { name: 'TypeError', message: 'createApp expects an options object, got an array.' });
  });

  test('regression: a route without a name, first in the application\'s list, was reported as "Route #7" (the profiler\'s routes counted)', () => {
    assert.throws(() => checkCreateAppOptions({ routes: [{ name: 'a', path: '/a', controller }, { controller }] }), { message: 'Route #1 has no name.' });
    assert.throws(() => checkCreateAppOptions({ routes: [{ path: '/m', controller }] }), { message: 'The route with path "/m" has no name.' });
  });

  test('well-formed values, undefined values and no options at all pass', () => {
    checkCreateAppOptions(ACCEPTED);
    checkCreateAppOptions({ routes: undefined, sessionStore: undefined, debug: 'not checked here: loadConfig checks AppConfig options' });
    checkCreateAppOptions({});
    checkCreateAppOptions(undefined);
  });
});

// These go through createApp, and pass once create-app.ts calls checkCreateAppOptions(options) first
// thing: before that, each failed later (or not at all) with the messages quoted in their names.
describe('createApp', () => {
  const build = (options: unknown) => () => createApp(options as AppOptions);

  test('regression: createApp-only options of the wrong kind failed later ("routes is not iterable"), or were ignored (environment: "prod" left debug on)', () => {
    for (const [name, value, message] of REFUSED) {
      assert.throws(build({ env: 'prod', logSink: () => {}, [name]: value }), { message }, `${name}: ${String(value)}`);
    }
  });

  test('regression: createApp(null) and createApp("prod") failed with "Cannot read properties of null" and "Unknown createApp option \\"0\\""', () => {
    assert.throws(build(null), { name: 'TypeError', message: 'createApp expects an options object, got null.' });
    assert.throws(build('prod'), { name: 'TypeError', message: 'createApp expects an options object, got "prod" (a string).' });
  });

  test('regression: a debug app\'s first route without a name or path was reported as "Route #7"', () => {
    assert.throws(build({ env: 'dev', environment: {}, logSink: () => {}, routes: [{ controller }] }), { message: 'Route #0 has no name.' });
  });

  test('the well-formed values build an app', () => {
    const app = createApp({ ...ACCEPTED, env: 'prod' });
    assert.equal(app.config.env, 'prod');
  });
});
