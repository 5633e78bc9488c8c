/**
 * What a client puts in the path reaches the stored profile masked like the rest of the request.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HttpResponse } from '../../src/index.ts';
import { get, profiledApp, profileOf } from './support.ts';

describe('profile recording of the path', () => {
  test('regression: a secret path parameter (;token=…) is not kept raw in the profile\'s pathInfo', async () => {
    const app = profiledApp({ routes: [{ name: 'page', path: '/x/:rest', controller: () => HttpResponse.html('<html><body>x</body></html>') }] });
    const response = await get(app, '/x/a;token=SECRETTK');
    assert.equal(response.status, 200);
    const profile = await profileOf(app, response);
    assert.ok(!JSON.stringify(profile).includes('SECRETTK'), 'the secret is stored nowhere in the profile');
    assert.equal(profile.request.pathInfo, '/x/a;token=***');
    assert.equal(profile.url, 'http://127.0.0.1:8000/x/a;token=***');
  });
});
