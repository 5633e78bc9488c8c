import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createApp, HttpResponse, type KernelRequest } from '../../src/index.ts';

/** README statements an adopter read one way and the code answered another, checked against the code. */
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

test('regression: the README said a method controller (`ProductController.show`) shows "as its name" without saying that name is `show` (`bound show` once bound)', async () => {
  class ProductController {
    static show(_request: KernelRequest) { return HttpResponse.text('show'); }
    list(_request: KernelRequest) { return HttpResponse.text('list'); }
  }
  const app = createApp({ debug: true, logLevel: 'emergency', logSink: () => {}, routes: [
    { name: 'static', path: '/static', controller: ProductController.show },
    { name: 'bound', path: '/bound', controller: new ProductController().list.bind(new ProductController()) },
  ] });
  const controllerOf = async (path: string) => {
    const response = await app.fetch(new Request(`http://localhost${path}`));
    const profile = await app.fetch(new Request(response.headers.get('x-debug-token-link')!, { headers: { accept: 'application/json' } }));
    return (await profile.json()).controller;
  };
  assert.equal(await controllerOf('/static'), 'show');
  assert.equal(await controllerOf('/bound'), 'bound list');
  assert.ok(readme.includes('a method (`ProductController.show`) as its name, `show`'), 'the README says which name');
  assert.ok(readme.includes('`bound show`'), 'and what binding does to it');
});
