import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type RouteDefinition } from '../../src/index.ts';
import { records, send, testApp } from '../pipeline/harness.ts';

const routes: RouteDefinition[] = [
  { name: 'search', path: '/search', controller: (r) => HttpResponse.json({ uri: r.getUri(), qs: r.getQueryString() }) },
];

test('regression: getUri and getQueryString turned a query byte that is no UTF-8 (a Latin-1 `q=%E9t%E9`) into U+FFFD (`%EF%BF%BD`), so the URL a login sends back to was another one; the bytes stay as sent, as in Symfony', async () => {
  const { app, lines } = testApp({ routes, logFormat: 'json' });
  const r = await send(app, '/search?q=%E9t%E9&%FF=1&u=%C3%A9');
  assert.deepEqual(await r.json(), {
    uri: 'http://localhost/search?q=%E9t%E9&u=%C3%A9&%FF=1',
    qs: 'q=%E9t%E9&u=%C3%A9&%FF=1',
  });
  const matched = records(lines).find((l) => l.message.startsWith('Matched route'));
  assert.equal(matched?.context.request_uri, 'http://localhost/search?q=%E9t%E9&u=%C3%A9&%FF=1');
});

test('regression: a query name with an unclosed bracket (`a[=1`, `a b[x.y=2`) lost its `[` in getUri and getQueryString (`a_=1`, `a%20b_x_y=2`); Symfony\'s HeaderUtils::parseQuery gives it back (`a%5B=1`, `a%20b%5Bx_y=2`)', async () => {
  const { app } = testApp({ routes });
  const body = await (await send(app, '/search?z=1&a[=1&a%20b[x.y=2')).json();
  assert.equal(body.qs, 'a%20b%5Bx_y=2&a%5B=1&z=1');
  assert.equal(body.uri, 'http://localhost/search?a%20b%5Bx_y=2&a%5B=1&z=1');
});

test('regression: getLanguages upper-cased subtags with JavaScript\'s Unicode rules, so `Accept-Language: x-\\xFF` became `x_Ÿ` (U+0178) and an app putting it in Content-Language answered 500; the case changes in ASCII letters only, as PHP\'s strtoupper', async () => {
  const { app } = testApp({
    env: 'prod',
    routes: [{ name: 'lang', path: '/lang', controller: (r) => {
      const languages = r.getLanguages();
      return HttpResponse.json(languages, 200, { 'content-language': languages[0]! });
    } }],
  });
  const r = await send(app, '/lang', { headers: { 'accept-language': 'x-\u00ff, DE-ch;q=0.5, de-\u00df;q=0.4' } });
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-language'), 'x_\u00ff');
  assert.deepEqual(await r.json(), ['x_\u00ff', 'de_CH', 'de_\u00df']);
});
