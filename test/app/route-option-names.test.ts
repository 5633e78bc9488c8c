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
