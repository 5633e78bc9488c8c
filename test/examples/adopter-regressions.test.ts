import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGuestbookApp } from '../../examples/guestbook/app.ts';
import { createNotesApp } from '../../examples/notes-api/app.ts';
import { createShopApp } from '../../examples/shop/app.ts';

/**
 * What an adopter found reading the examples' READMEs against what the examples answer. Each test
 * failed before its fix.
 */
const quiet = { logLevel: 'emergency', logSink: () => {} } as const;

/** The profile (JSON) of a response, in debug mode. */
async function profileOf(app: { fetch(request: Request): Promise<Response> }, response: Response): Promise<{ route: string; controller: string }> {
  const link = response.headers.get('x-debug-token-link');
  assert.ok(link, 'a debug-mode response links its profile');
  return (await app.fetch(new Request(link, { headers: { accept: 'application/json' } }))).json();
}

test('regression: shop routes home, api_product_show, logout and admin_logout showed as "controller" in logs and the profiler, though the README says each is named after its Symfony counterpart', async () => {
  const shop = createShopApp({ debug: true, ...quiet });
  const requests: [string, RequestInit][] = [
    ['/', {}],
    ['/api/products/1', { headers: { authorization: 'Bearer shop-api-token', accept: 'application/json' } }],
    ['/logout', {}],
    ['/admin/logout', {}],
  ];
  for (const [path, init] of requests) {
    const response = await shop.fetch(new Request(`http://shop.test${path}`, init));
    const profile = await profileOf(shop, response);
    assert.match(profile.controller, /^App\\Controller\\[A-Za-z\\]+Controller::[A-Za-z_]+$/, `${path} (${profile.route})`);
  }
});

test('regression: the guestbook\'s / route showed as "controller" in logs and the profiler, though its README says controllers are named after their Symfony counterparts', async () => {
  const guestbook = createGuestbookApp({ debug: true, ...quiet });
  const response = await guestbook.fetch(new Request('http://guestbook.test/'));
  assert.equal(response.status, 302);
  const profile = await profileOf(guestbook, response);
  assert.equal(profile.route, 'home');
  assert.match(profile.controller, /^App\\Controller\\[A-Za-z]+Controller::[A-Za-z]+$/);
});

test('regression: notes-api refused ?page=1000000000 with a 400 saying the page must be between 1 and 9007199254740991', async () => {
  const notes = createNotesApp({ debug: true, ...quiet });
  const far = await notes.fetch(new Request('http://notes.test/notes?page=1000000000'));
  assert.equal(far.status, 200);
  assert.deepEqual(await far.json(), { page: 1000000000, limit: 10, total: 0, items: [] });
  const beyond = await notes.fetch(new Request('http://notes.test/notes?page=9007199254740992', { headers: { accept: 'application/json' } }));
  assert.equal(beyond.status, 400);
  assert.equal((await beyond.json()).detail, 'Query parameter "page" must be an integer between 1 and 9007199254740991.');
  for (const page of ['0', '01', '-1', '1.5', '', '1e3']) {
    assert.equal((await notes.fetch(new Request(`http://notes.test/notes?page=${page}`))).status, 400, page);
  }
});

test('regression: the shop\'s "in your basket" flash was not shown on the product page the purchase redirects to, but later on the account page', async () => {
  const shop = createShopApp({ debug: false, ...quiet });
  const jar = new Map<string, string>();
  const visit = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await shop.fetch(new Request(`http://shop.test${path}`, { ...init, headers }));
    for (const line of response.headers.getSetCookie()) {
      const [, name, value] = /^([^=]+)=([^;]*)/.exec(line)!;
      if (/max-age=0/i.test(line)) jar.delete(name!);
      else jar.set(name!, value!);
    }
    return response;
  };
  const login = await (await visit('/login')).text();
  const token = /name="_csrf_token" value="([^"]*)"/.exec(login)![1]!;
  await visit('/login', { method: 'POST', body: new URLSearchParams({ _username: 'alice', _password: 'alice-pass', _csrf_token: token }) });
  await visit('/en/account'); // reads the "Welcome" flash
  const bought = await visit('/en/products/1/buy', { method: 'POST' });
  assert.equal(bought.status, 302);
  const location = bought.headers.get('location')!;
  assert.equal(location, '/en/products/1');
  assert.match(await (await visit(location)).text(), /<p class="flash-success">Espresso cup is in your basket\.<\/p>/);
  assert.doesNotMatch(await (await visit('/en/account')).text(), /in your basket/, 'shown once');
  // An anonymous visitor's product page still starts no session (reading the flashes makes it private, as app.flashes does).
  const anonymous = await shop.fetch(new Request('http://shop.test/en/products/1'));
  assert.equal(anonymous.status, 200);
  assert.equal(anonymous.headers.get('set-cookie'), null);
});
