// The `converters` route option against SensioFrameworkExtraBundle 5's DateTimeParamConverter and PHP's int.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type KernelRequest, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

const echo = (request: KernelRequest) => {
  const value = request.attributes.get('v');
  return HttpResponse.json({ iso: value instanceof Date ? value.toISOString() : null, value: value instanceof Date ? null : value, negativeZero: Object.is(value, -0), shown: typeof value === 'number' ? value.toLocaleString('en') : null });
};

const routes: RouteDefinition[] = [
  { name: 'day', path: '/day/:v', controller: echo, options: { converters: { v: 'date' } } },
  { name: 'maybe_day', path: '/maybe-day/:v', controller: echo, options: { converters: { v: { converter: 'date', optional: true } } } },
  { name: 'number', path: '/number/:v', controller: echo, options: { converters: { v: 'int' } } },
];

const JSON_CLIENT = { headers: { accept: 'application/json' } };

test('regression: the date converter answered 404 for a Unix timestamp; Sensio\'s DateTimeParamConverter reads a non-negative integer as one', async () => {
  const { app } = testApp({ routes });
  const stamp = await send(app, '/day/1700000000', JSON_CLIENT);
  assert.equal(stamp.status, 200);
  assert.equal((await stamp.json()).iso, '2023-11-14T22:13:20.000Z');
  assert.equal((await (await send(app, '/day/0', JSON_CLIENT)).json()).iso, '1970-01-01T00:00:00.000Z');
  assert.equal((await (await send(app, '/day/+5', JSON_CLIENT)).json()).iso, '1970-01-01T00:00:05.000Z');
  // What FILTER_VALIDATE_INT (min_range 0) refuses is no timestamp, and none of it is a date either.
  for (const value of ['-5', '-0', '+0', '007', '1e3', '0x1A', '1.5', '9223372036854775808']) {
    const r = await send(app, `/day/${value}`, JSON_CLIENT);
    assert.equal(r.status, 404, value);
    assert.equal((await r.json()).detail, 'Invalid date given for parameter "v".', value);
  }
  // Beyond PHP_INT_MAX's reach of a Date: still a 404, never an Invalid Date handed to the controller.
  assert.equal((await send(app, '/day/9223372036854775807', JSON_CLIENT)).status, 404);
  // The ISO forms are still read as before.
  assert.equal((await (await send(app, '/day/2026-03-04', JSON_CLIENT)).json()).iso, '2026-03-04T00:00:00.000Z');
  // An optional date whose value PHP reads as empty (`!'0'`) is null, as Sensio sets it.
  const optional = await send(app, '/maybe-day/0', JSON_CLIENT);
  assert.equal(optional.status, 200);
  assert.deepEqual(await optional.json(), { iso: null, value: null, negativeZero: false, shown: null });
  assert.equal((await (await send(app, '/maybe-day/1700000000', JSON_CLIENT)).json()).iso, '2023-11-14T22:13:20.000Z');
});

test('regression: the int converter gave -0 for "-0" (shown as "-0" by toLocaleString); an integer has no negative zero', async () => {
  const { app } = testApp({ routes });
  const r = await send(app, '/number/-0', JSON_CLIENT);
  assert.equal(r.status, 200);
  assert.deepEqual(await r.json(), { iso: null, value: 0, negativeZero: false, shown: '0' });
  assert.deepEqual(await (await send(app, '/number/-7', JSON_CLIENT)).json(), { iso: null, value: -7, negativeZero: false, shown: '-7' });
});
