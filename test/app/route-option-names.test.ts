// Route options checked when the app is built (src/app/route-option-names.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApp } from '../../src/app/create-app.ts';
import { HttpResponse } from '../../src/http/response.ts';

const member = (converters: unknown) => ({
  name: 'member',
  path: '/members/:id',
  controller: (request: { attributes: { get(name: string): unknown } }) => HttpResponse.json({ id: request.attributes.get('id') }),
  options: { converters: converters as never },
});
const build = (converters: unknown) => () => createApp({ env: 'prod', environment: {}, logSink: () => {}, routes: [member(converters)] });

test('regression: an unknown converter ("integer") was accepted when the app was built, and every request to its route was a 500', () => {
  assert.throws(build({ id: 'integer' }), { message: 'Unknown converter "integer" for parameter "id" of route "member" (use int, float, date, bool, a function, or { converter, optional }).' });
  assert.throws(build({ id: { converter: 'number', optional: true } }), { message: /^Unknown converter "number" for parameter "id" of route "member"/ });
  assert.throws(build({ id: { optional: true } }), { message: /^Unknown converter undefined for parameter "id" of route "member"/ });
  assert.throws(build({ id: null }), { message: /^Unknown converter null for parameter "id"/ });
  assert.throws(build('int'), { message: 'The "converters" option of route "member" must be an object (parameter name → converter), got "int".' });
});

test('the converters ParamConverterListener knows are accepted, and convert', async () => {
  for (const converters of [{ id: 'int' }, { id: { converter: 'int', optional: true } }, { id: (value: unknown) => Number(value) }]) {
    const app = build(converters)();
    const response = await app.fetch(new Request('http://localhost/members/7'));
    assert.deepEqual(await response.json(), { id: 7 }, JSON.stringify(converters));
  }
  for (const converters of [{ day: 'date', ratio: 'float', flag: 'bool' }, {}, undefined, null]) build(converters)();
});

const withOptions = (options: Record<string, unknown>) => () =>
  createApp({ env: 'prod', environment: {}, logSink: () => {}, routes: [{ name: 'page', path: '/page', controller: () => HttpResponse.text('x'), options: options as never }] });

test('regression: a cache duration that is no number of seconds ("1 day") was dropped without a word, and the page went out no-cache', async () => {
  assert.throws(withOptions({ cache: { maxAge: '1 day' } }), { message: 'The cache option "maxAge" of route "page" is no number of seconds: "1 day". Give seconds (86400 for "1 day").' });
  assert.throws(withOptions({ cache: { sMaxAge: '+2 hours' } }), { message: /^The cache option "sMaxAge" of route "page" is no number of seconds: "\+2 hours"/ });
  assert.throws(withOptions({ cache: { staleIfError: Number.NaN } }), { message: /"staleIfError" of route "page" is no number of seconds: NaN/ });
  assert.throws(withOptions({ cache: { maxStale: true } }), { message: /"maxStale" of route "page" is no number of seconds: true/ });
  // A numeric string is seconds, as Sensio's is_numeric reads it.
  const response = await withOptions({ cache: { maxAge: '3600', staleWhileRevalidate: 30 } })().fetch(new Request('http://localhost/page'));
  assert.equal(response.headers.get('cache-control'), 'max-age=3600, stale-while-revalidate=30, private');
});

test('regression: a statusCode that is no HTTP status made every refused request a bare 500; it is refused when the app is built', () => {
  assert.throws(withOptions({ isGranted: { attributes: 'ROLE_ADMIN', statusCode: 99 } }), { message: 'The "isGranted" option of route "page" has statusCode 99: give an HTTP status (100-599), or none for Symfony\'s 401/403.' });
  assert.throws(withOptions({ security: { predicate: () => false, statusCode: 'forbidden' } }), { message: /^The "security" option of route "page" has statusCode "forbidden"/ });
  assert.throws(withOptions({ security: { predicate: () => false, statusCode: 403.5 } }), { message: /has statusCode 403\.5:/ });
  for (const statusCode of [undefined, null, 0, 403, '404']) withOptions({ isGranted: { attributes: 'ROLE_ADMIN', statusCode } })();
});

test('regression: a malformed isGranted option ({}, 5, [\'ROLE_X\', 7]) was accepted when the app was built, and every logged-in member got a 500 on its route', () => {
  for (const isGranted of [{}, 5, ['ROLE_X', 7], [], '', { attributes: [] }, { attributes: 5 }]) {
    assert.throws(withOptions({ isGranted }), { message: /^The "isGranted" option of route "page" must name a role or attribute/ }, JSON.stringify(isGranted));
  }
  for (const isGranted of ['ROLE_ADMIN', ['ROLE_A', 'ROLE_B'], { attributes: 'IS_AUTHENTICATED_FULLY' }, { attributes: ['ROLE_A'], message: 'no' }, null]) withOptions({ isGranted })();
});

test('regression: Symfony route settings irms-web does not support (host, condition, schemes) were accepted under "options", where the build error pointed, and the route matched every host and request', () => {
  for (const key of ['host', 'condition', 'schemes']) {
    const value = key === 'schemes' ? ['https'] : key === 'host' ? 'm.example.com' : "request.headers.get('User-Agent') matches '/firefox/i'";
    assert.throws(withOptions({ [key]: value }), { message: new RegExp(`^Route "page": Symfony's route "${key}" is not supported by irms-web's router; check it in `) }, key);
    const topLevel = () => createApp({ env: 'prod', environment: {}, logSink: () => {}, routes: [{ name: 'page', path: '/page', controller: () => HttpResponse.text('x'), [key]: value } as never] });
    assert.throws(topLevel, { message: new RegExp(`Symfony's route "${key}" is not supported`) }, key);
  }
  // The application's own options stay allowed.
  withOptions({ audit: true, section: 'blog' })();
});
