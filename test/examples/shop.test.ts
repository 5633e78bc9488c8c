import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createShopApp } from '../../examples/shop/app.ts';

/**
 * The example shop (examples/shop), driven as a browser and an API client would drive it: what each
 * answer shows, not how the app computes it.
 */
const logs: string[] = [];
const shop = createShopApp({ debug: false, logSink: (line) => void logs.push(line) });
const debugShop = createShopApp({ debug: true, logLevel: 'emergency', logSink: () => {} });

/** A browser: keeps its cookies, never follows redirects. */
function browser(app = shop) {
  const jar = new Map<string, string>();
  return async (path: string, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await app.fetch(new Request(`http://shop.test${path}`, { ...init, headers, redirect: 'manual' }));
    for (const line of response.headers.getSetCookie()) {
      const [, name, value] = /^([^=]+)=([^;]*)/.exec(line)!;
      if (/max-age=0/i.test(line)) jar.delete(name!);
      else jar.set(name!, value!);
    }
    return response;
  };
}

const form = (fields: Record<string, string>): RequestInit => ({ method: 'POST', body: new URLSearchParams(fields) });

/** Fills the login form as a browser does: the page first, for its CSRF token. */
async function logInWith(visit: ReturnType<typeof browser>, path: string, fields: Record<string, string>): Promise<Response> {
  const page = await (await visit(path)).text();
  const token = /name="_csrf_token" value="([^"]*)"/.exec(page)![1]!;
  return visit(path, form({ ...fields, _csrf_token: token }));
}
const api = (init: RequestInit & { token?: string } = {}): RequestInit => ({
  ...init,
  headers: { accept: 'application/json', 'content-type': 'application/json', ...(init.token ? { authorization: `Bearer ${init.token}` } : {}) },
});

test('the product list is an HTML page in the locale of its URL, names escaped, with the shop header', async () => {
  const response = await shop.fetch(new Request('http://shop.test/fr/products'));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'text/html; charset=UTF-8');
  assert.equal(response.headers.get('x-shop'), 'irms-shop/1.0');
  const html = await response.text();
  assert.match(html, /<html lang="fr">/);
  assert.match(html, /<h1>Produits<\/h1>/);
  assert.match(html, /<a href="\/fr\/products\/2">Coffee grinder &lt;Pro&gt;<\/a>/);
});

test('a locale the shop does not offer is a 404; / sends the visitor to their language', async () => {
  assert.equal((await shop.fetch(new Request('http://shop.test/de/products'))).status, 404);
  const home = await shop.fetch(new Request('http://shop.test/', { headers: { 'accept-language': 'de-CH, fr;q=0.5' } }));
  assert.equal(home.status, 302);
  assert.equal(home.headers.get('location'), '/fr/products');
});

test('a product page shows the product; a missing product is a 404 page, with the shop header too', async () => {
  const found = await shop.fetch(new Request('http://shop.test/en/products/1'));
  assert.equal(found.status, 200);
  assert.match(await found.text(), /<h1>Espresso cup<\/h1><p>Price: 9.5 €<\/p>/);
  const missing = await shop.fetch(new Request('http://shop.test/en/products/99'));
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-shop'), 'irms-shop/1.0');
  assert.match(await missing.text(), /<title>An Error Occurred: Not Found<\/title>/);
});

test('the API wants a bearer token: 401 with WWW-Authenticate without one, the products with one', async () => {
  const anonymous = await shop.fetch(new Request('http://shop.test/api/products', api()));
  assert.equal(anonymous.status, 401);
  assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
  assert.equal(anonymous.headers.get('content-type'), 'application/problem+json');
  assert.equal(anonymous.headers.get('set-cookie'), null, 'a stateless firewall starts no session');
  const listed = await shop.fetch(new Request('http://shop.test/api/products', api({ token: 'shop-api-token' })));
  assert.equal(listed.status, 200);
  assert.deepEqual((await listed.json()).slice(0, 1), [{ id: 1, name: 'Espresso cup', price: 9.5, stock: 12 }]);
});

test('the API refuses an invalid product with 422 problem+json listing each violation, and creates a valid one', async () => {
  const refused = await shop.fetch(new Request('http://shop.test/api/products', api({ method: 'POST', token: 'shop-api-token', body: '{"name":" ","price":-1}' })));
  assert.equal(refused.status, 422);
  assert.equal(refused.headers.get('content-type'), 'application/problem+json');
  const problem = await refused.json();
  assert.equal(problem.title, 'Validation Failed');
  assert.deepEqual(problem.violations.map((v: { propertyPath: string }) => v.propertyPath), ['name', 'price']);

  const created = await shop.fetch(new Request('http://shop.test/api/products', api({ method: 'POST', token: 'shop-api-token', body: '{"name":"Mug","price":4}' })));
  assert.equal(created.status, 201);
  const product = await created.json();
  assert.equal(created.headers.get('location'), `/api/products/${product.id}`);
  const read = await shop.fetch(new Request(`http://shop.test${created.headers.get('location')}`, api({ token: 'shop-api-token' })));
  assert.deepEqual(await read.json(), product);
});

test('login: the account page sends a visitor to the login form, a wrong password flashes an error, the right one goes back', async () => {
  const visit = browser();
  const account = await visit('/fr/account');
  assert.equal(account.status, 302);
  assert.equal(account.headers.get('location'), 'http://shop.test/login');

  const wrong = await logInWith(visit, '/login', { _username: 'alice', _password: 'nope' });
  assert.equal(wrong.headers.get('location'), '/login');
  assert.match(await (await visit('/login')).text(), /<p class="error">Invalid credentials.<\/p>/);
  assert.doesNotMatch(await (await visit('/login')).text(), /Invalid credentials/, 'a flash is shown once');

  const right = await logInWith(visit, '/login', { _username: 'alice', _password: 'alice-pass' });
  assert.equal(right.status, 302);
  assert.equal(right.headers.get('location'), 'http://shop.test/fr/account', 'back to the page that asked for the login');
  const page = await (await visit('/fr/account')).text();
  assert.match(page, /<p class="flash-success">Welcome, alice!<\/p><h1>Bonjour alice<\/h1><a href="\/logout">/);
});

test('login: a form posted without its CSRF token (another site\'s form) fails as form_login\'s enable_csrf fails it', async () => {
  const visit = browser();
  await visit('/login');
  const forged = await visit('/login', form({ _username: 'alice', _password: 'alice-pass' }));
  assert.equal(forged.headers.get('location'), '/login');
  assert.match(await (await visit('/login')).text(), /<p class="error">Invalid CSRF token.<\/p>/);
  assert.equal((await visit('/en/account')).status, 302, 'not logged in');
});

test('regression: failed logins repeated on one session, the form never shown, piled up error flashes until the session outgrew its store (a 500)', async () => {
  const visit = browser();
  const token = /name="_csrf_token" value="([^"]*)"/.exec(await (await visit('/login')).text())![1]!;
  for (let i = 0; i < 3000; i++) {
    const wrong = await visit('/login', form({ _username: 'alice', _password: `nope-${i}`, _csrf_token: token }));
    assert.equal(wrong.status, 302, `attempt ${i}`);
  }
  // The last error is kept, as form_login keeps only the last one (_security.last_error).
  assert.equal((await (await visit('/login')).text()).match(/Invalid credentials/g)?.length, 1);
});

test('logout: the firewall logs the member out at its logout path and redirects home', async () => {
  const visit = browser();
  await logInWith(visit, '/login', { _username: 'alice', _password: 'alice-pass' });
  assert.equal((await visit('/en/account')).status, 200);
  const out = await visit('/logout');
  assert.equal(out.status, 302);
  assert.equal(out.headers.get('location'), 'http://shop.test/');
  assert.equal((await visit('/en/account')).status, 302);
});

test('buying an out-of-stock product is the 409 page of the OutOfStockListener', async () => {
  const visit = browser();
  await logInWith(visit, '/login', { _username: 'alice', _password: 'alice-pass' });
  const response = await visit('/en/products/2/buy', { method: 'POST' });
  assert.equal(response.status, 409);
  assert.match(await response.text(), /<p>Coffee grinder &lt;Pro&gt; is out of stock.<\/p>/);
  assert.equal(response.headers.get('x-shop'), 'irms-shop/1.0');
  assert.ok(logs.some((line) => line.includes('request.CRITICAL: Uncaught Exception OutOfStockError')), 'logged as Symfony logs it');
});

test('the back office has its own login: a shop login is not enough, ROLE_USER is a 403, ROLE_ADMIN gets in', async () => {
  const visit = browser();
  await logInWith(visit, '/login', { _username: 'admin', _password: 'admin-pass' });
  const redirected = await visit('/admin');
  assert.equal(redirected.status, 302);
  assert.equal(redirected.headers.get('location'), 'http://shop.test/admin/login');
  const in_ = await logInWith(visit, '/admin/login', { _username: 'admin', _password: 'admin-pass' });
  assert.equal(in_.headers.get('location'), 'http://shop.test/admin');
  const dashboard = await visit('/admin');
  assert.equal(dashboard.status, 200);
  assert.match(await dashboard.text(), /<h1>Back office<\/h1>.*<a href="\/admin\/logout">/);

  const alice = browser();
  await logInWith(alice, '/admin/login', { _username: 'alice', _password: 'alice-pass' });
  assert.equal((await alice('/admin')).status, 403);
});

test('debug mode: the toolbar on pages, and the profile of a request read back as JSON', async () => {
  const response = await debugShop.fetch(new Request('http://shop.test/en/products/1'));
  assert.match(await response.text(), /<div id="irms-wdt-[0-9a-f]+"/);
  const link = response.headers.get('x-debug-token-link')!;
  assert.match(link, /^http:\/\/shop\.test\/_profiler\/[0-9a-f]+$/);
  const profile = await (await debugShop.fetch(new Request(link, { headers: { accept: 'application/json' } }))).json();
  assert.equal(profile.route, 'product_show');
  assert.equal(profile.controller, 'App\\Controller\\ProductController::show');
  assert.equal(profile.status, 200);
  assert.equal(profile.request.locale, 'en');
  assert.ok(profile.events.some((e: { listener: string }) => e.listener === 'App\\EventListener\\ShopHeaderListener::onKernelResponse'));
  assert.equal((await shop.fetch(new Request(link))).status, 404, 'no profiler outside debug mode');
});
