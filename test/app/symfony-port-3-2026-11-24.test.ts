/**
 * Findings of the third Symfony-port walkthrough (a JSON task API with locale-prefixed pages), each
 * checked against Symfony 5.4's code: Response::prepare and qandidate's JSON body listener.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HttpResponse } from '../../src/index.ts';
import { quietApp } from '../support/app.ts';

const app = quietApp({
  routes: [
    { name: 'task', path: '/api/tasks/:id', methods: ['GET'], controller: (r) => HttpResponse.json({ id: r.attributes.get('id'), method: r.getMethod() }) },
    {
      name: 'export',
      path: '/api/export',
      methods: ['GET'],
      controller: () =>
        new HttpResponse(
          new ReadableStream<Uint8Array>({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('id,title\n'));
              controller.close();
            },
          }),
          200,
          { 'content-type': 'text/csv' },
        ),
    },
    { name: 'echo', path: '/api/echo', methods: ['POST'], controller: (r) => HttpResponse.json(r.request.all()) },
    { name: 'decode', path: '/api/decode', methods: ['PUT'], controller: async (r) => HttpResponse.json(await r.toArray()) },
  ],
});

const form = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });

test('regression: a POST overridden to HEAD gets no body, as Response::prepare reads the overridden method', async () => {
  for (const init of [form('_method=HEAD'), { method: 'POST', headers: { 'x-http-method-override': 'HEAD' } }]) {
    const response = await app.fetch(new Request('http://localhost/api/tasks/1', init));
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/json');
    assert.equal(await response.text(), '');
    assert.equal(response.headers.get('content-length'), null, 'no GET length for a client that reads a body');
  }
  const streamed = await app.fetch(new Request('http://localhost/api/export', form('_method=HEAD')));
  assert.equal(streamed.status, 200);
  assert.equal(await streamed.text(), '');
});

test('a POST overridden to GET, and a plain GET, still get their body', async () => {
  const overridden = await app.fetch(new Request('http://localhost/api/tasks/1', form('_method=GET')));
  assert.deepEqual(await overridden.json(), { id: '1', method: 'GET' });
  const head = await app.fetch(new Request('http://localhost/api/tasks/1', { method: 'HEAD' }));
  assert.equal(await head.text(), '');
  assert.equal(head.headers.get('content-length'), String('{"id":"1","method":"HEAD"}'.length), 'a real HEAD keeps GET\'s length');
});

const json = (method: string, body: string): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body });

test('regression: JSON body objects keyed 0, 1, 2… and empty objects are lists, as json_decode($body, true) gives them', async () => {
  const body = '{"tags":{"0":"x","1":"y"},"meta":{},"deep":[{"0":{}}],"name":{"a":1,"0":2},"gap":{"0":"a","2":"b"},"one":{"0":"z"},"__proto__":{"0":1}}';
  const expected = '{"tags":["x","y"],"meta":[],"deep":[[[]]],"name":{"0":2,"a":1},"gap":{"0":"a","2":"b"},"one":["z"],"__proto__":[1]}';
  const echoed = await app.fetch(new Request('http://localhost/api/echo', json('POST', body)));
  assert.equal(await echoed.text(), expected);
  const decoded = await app.fetch(new Request('http://localhost/api/decode', json('PUT', body)));
  assert.equal(await decoded.text(), expected);
  assert.equal(({} as Record<string, unknown>)[0], undefined, 'no prototype reached');
});

test('toArray of a top-level object keyed 0, 1 or of {} is a list, as Symfony\'s toArray returns it', async () => {
  const list = await app.fetch(new Request('http://localhost/api/decode', json('PUT', '{"0":"a","1":"b"}')));
  assert.equal(await list.text(), '["a","b"]');
  const empty = await app.fetch(new Request('http://localhost/api/decode', json('PUT', '{}')));
  assert.equal(await empty.text(), '[]');
  const params = await app.fetch(new Request('http://localhost/api/echo', json('POST', '{"0":"a","1":"b"}')));
  assert.equal(await params.text(), '{"0":"a","1":"b"}', 'the body parameters are a bag: all() is an object keyed 0 and 1, where PHP\'s array would be written as a list (README)');
});
