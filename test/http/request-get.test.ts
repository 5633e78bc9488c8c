/** request.get(key, fallback): Symfony 5.4's Request::get (attributes, then query, then body). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse } from '../../src/index.ts';
import { kernelRequest } from '../support/request.ts';
import { quietApp } from '../support/app.ts';

test('the first bag that has the key answers: attributes, then query, then the body', () => {
  const r = kernelRequest({ target: '/?k=query&q=query' });
  r.request.set('k', 'body');
  r.request.set('q', 'body');
  r.request.set('b', 'body');
  r.attributes.set('k', 'attribute');
  assert.equal(r.get('k'), 'attribute');
  assert.equal(r.get('q'), 'query');
  assert.equal(r.get('b'), 'body');
});

test('absent everywhere: the fallback, or undefined without one', () => {
  const r = kernelRequest({ target: '/?a=1' });
  assert.equal(r.get('missing'), undefined);
  assert.equal(r.get('missing', 'default'), 'default');
  assert.equal(r.get('missing', null), null);
});

test('a key present with null, false, 0 or an empty string answers that value and stops the search', () => {
  const r = kernelRequest({ target: '/?n=query&e=&z=query' });
  r.attributes.set('n', null);
  assert.equal(r.get('n', 'default'), null, 'an attribute set to null hides the query parameter');
  assert.equal(r.get('e', 'default'), '', 'an empty query value is present');
  r.attributes.set('z', 0);
  assert.equal(r.get('z'), 0);
  r.request.set('f', false);
  assert.equal(r.get('f', true), false);
  r.request.set('u', null);
  assert.equal(r.get('u', 'default'), null, 'a body parameter set to null is present');
  // Removing the attribute lets the query answer again.
  r.attributes.remove('n');
  assert.equal(r.get('n'), 'query');
});

test('nested parameters come back whole, as `$this->query->all()[$key]` gives them', () => {
  const r = kernelRequest({ target: '/?tags[]=a&tags[]=b&filter[year]=2024' });
  assert.deepEqual(r.get('tags'), ['a', 'b']);
  assert.deepEqual({ ...(r.get('filter') as object) }, { year: '2024' });
});

test('end to end: a route attribute, then the query, then a form body, through createApp(...).fetch', async () => {
  const app = quietApp({
    routes: [
      {
        name: 'read',
        path: '/things/:id',
        methods: ['POST'],
        controller: (r) =>
          HttpResponse.json({ id: r.get('id'), page: r.get('page'), note: r.get('note'), missing: r.get('missing', 'fallback'), nothing: r.get('nothing') ?? 'undefined' }),
      },
    ],
  });
  const response = await app.fetch(
    new Request('http://localhost/things/7?id=from-query&page=2', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'id=from-body&page=from-body&note=hello',
    }),
  );
  assert.equal(response.status, 200, await response.clone().text());
  assert.deepEqual(await response.json(), { id: '7', page: '2', note: 'hello', missing: 'fallback', nothing: 'undefined' });
});

test('a JSON body\'s null is present: it answers null, not the fallback', async () => {
  const app = quietApp({
    routes: [{ name: 'json', path: '/json', methods: ['POST'], controller: (r) => HttpResponse.json({ v: r.get('v', 'fallback'), w: r.get('w', 'fallback') }) }],
  });
  const response = await app.fetch(new Request('http://localhost/json', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"v": null}' }));
  assert.equal(response.status, 200, await response.clone().text());
  assert.deepEqual(await response.json(), { v: null, w: 'fallback' });
});
