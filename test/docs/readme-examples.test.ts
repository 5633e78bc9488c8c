import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * The README's examples, run as a reader copies them: each block marked `<!-- docs-test: name -->` in
 * README.md is taken as written, its `'irms-web'` import pointed at src/index.ts, and run as a module, so
 * the test fails when the README and the code drift apart.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const library = pathToFileURL(join(root, 'src/index.ts')).href;
const scratch = mkdtempSync(join(tmpdir(), 'irms-readme-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// The README's defaults are debug mode's; a developer's shell may say otherwise. Logs stay off the test output.
delete process.env.APP_ENV;
delete process.env.APP_DEBUG;
process.env.LOG_LEVEL = 'emergency';

function example(name: string): string {
  const found = new RegExp(`<!-- docs-test: ${name} -->\\n\`\`\`(?:ts|js)\\n([^]*?)\`\`\``).exec(readme);
  assert.ok(found, `README.md has no block marked <!-- docs-test: ${name} -->`);
  return found[1]!;
}

let modules = 0;
/** Runs the code (the README's, with what it leaves to its surroundings) as a module; its exports. */
async function run(code: string): Promise<Record<string, any>> {
  const file = join(scratch, `example-${++modules}.mts`);
  writeFileSync(file, code.replaceAll("from 'irms-web'", `from '${library}'`));
  return import(pathToFileURL(file).href);
}

test("the README's first example answers GET /members/7 with the route parameter", async () => {
  const { default: worker } = await run(example('use'));
  const response: Response = await worker.fetch(new Request('http://localhost/members/7'));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'application/json');
  assert.deepEqual(await response.json(), { id: '7' });
});

test("the README's validation example answers a problem document with its violations, else 201", async () => {
  const { app } = await run(
    "import { createApp, HttpResponse, type KernelRequest } from 'irms-web';\n" +
      "const validateOrder = (data: Record<string, unknown>) => (data.quantity ? [] : [{ propertyPath: 'quantity', title: 'This value should not be blank.' }]);\n" +
      example('validation') +
      "export const app = createApp({ routes: [{ name: 'order', path: '/orders', methods: ['POST'], controller: createOrder }] });\n",
  );
  const post = (body: string) => app.fetch(new Request('http://localhost/orders', { method: 'POST', body, headers: { 'content-type': 'application/json' } }));
  const refused: Response = await post('{}');
  assert.equal(refused.status, 422);
  assert.equal(refused.headers.get('content-type'), 'application/problem+json');
  assert.deepEqual(await refused.json(), {
    type: 'https://example.com/problems/validation',
    title: 'Validation Failed',
    status: 422,
    detail: 'quantity: This value should not be blank.',
    violations: [{ propertyPath: 'quantity', title: 'This value should not be blank.' }],
  });
  const created: Response = await post('{"quantity":2}');
  assert.equal(created.status, 201);
  assert.deepEqual(await created.json(), { created: true });
});

test("regression: the README's listeners were only a `myListener` name, with nothing on what call(event) gets; its example now runs as described", async () => {
  const { app } = await run(`${example('listener')}\nexport { app };\n`);
  const bought: Response = await app.fetch(new Request('http://localhost/buy', { method: 'POST' }));
  assert.equal(bought.status, 409);
  assert.deepEqual(await bought.json(), { error: 'sold out' });
  assert.equal(bought.headers.get('x-app-version'), '1.4.0');
  const missing: Response = await app.fetch(new Request('http://localhost/nowhere'));
  assert.equal(missing.status, 404);
  assert.equal(missing.headers.get('x-app-version'), '1.4.0');
});

test('regression: the README never said how to reach the profiler; its example reads the profile of the first example\'s request', async () => {
  const { profile, link } = await run(`${example('use')}\n${example('profiler')}\nexport { profile, link };\n`);
  assert.match(link, /^http:\/\/localhost\/_profiler\/[0-9a-f]{6}$/);
  assert.equal(profile.route, 'member');
  assert.equal(profile.status, 200);
  assert.equal(profile.url, 'http://localhost/members/7');
  assert.ok(Array.isArray(profile.events) && Array.isArray(profile.logs));
});

test('the README\'s logout: the firewall logs out at its logout path before the route\'s controller runs', async () => {
  assert.match(readme, /The firewall watches its `logoutPath`/);
  const { createApp, HttpResponse, logIn, logoutUrl, getMember } = await import('../../src/index.ts');
  const routes = [
    { name: 'login', path: '/login', controller: (request: any) => (logIn(request, { memberId: '42', irmsToken: 'tok-secret', roles: ['ROLE_MEMBER'] }), HttpResponse.json({ logout: logoutUrl(request) })) },
    { name: 'me', path: '/me', controller: (request: any) => HttpResponse.json({ member: getMember(request)?.memberId ?? null }) },
  ];
  const login = async (app: any) => {
    const response: Response = await app.fetch(new Request('http://localhost/login'));
    assert.deepEqual(await response.json(), { logout: '/logout' });
    return response.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
  };
  const member = async (app: any, cookie: string) => (await (await app.fetch(new Request('http://localhost/me', { headers: { cookie } }))).json()).member;

  const withoutRoute = createApp({ routes });
  const cookie = await login(withoutRoute);
  assert.equal((await withoutRoute.fetch(new Request('http://localhost/logout', { headers: { cookie } }))).status, 404, 'routing runs first');
  assert.equal(await member(withoutRoute, cookie), '42');

  const blank = { name: 'app_logout', path: '/logout', controller: () => { throw new Error('This method can be blank - it will be intercepted by the logout key on your firewall.'); } };
  const withRoute = createApp({ routes: [...routes, blank] });
  const cookie2 = await login(withRoute);
  const out: Response = await withRoute.fetch(new Request('http://localhost/logout', { headers: { cookie: cookie2 } }));
  assert.equal(out.status, 302);
  assert.equal(out.headers.get('location'), 'http://localhost/');
  assert.equal(await member(withRoute, cookie2), null);
});

test('regression: the README never mentioned startSession, so a controller on an asynchronous session store got a 500', async () => {
  assert.match(readme, /`await\s+startSession\(request\)` before a controller first reads or writes the session/);
  const { createApp, HttpResponse, startSession } = await import('../../src/index.ts');
  const stored = new Map<string, string>();
  const sessionStore = {
    read: async (id: string) => stored.get(id) ?? null,
    write: async (id: string, data: string, info?: { created: boolean }) => void (info?.created || stored.has(id) ? stored.set(id, data) : null),
    destroy: async (id: string) => void stored.delete(id),
  };
  const count = (request: any) => {
    const session = request.getSession();
    session.set('visits', (session.get('visits', 0) as number) + 1);
    return HttpResponse.json({ visits: session.get('visits'), id: typeof session.id, getId: typeof session.getId, isStarted: session.isStarted });
  };
  // Under /css/ (the dev firewall, no security) nothing loads the session before the controller.
  const app = createApp({
    sessionStore,
    routes: [
      { name: 'started', path: '/css/started', controller: async (request: any) => (await startSession(request), count(request)) },
      { name: 'unstarted', path: '/css/unstarted', controller: count },
    ],
  });
  const first: Response = await app.fetch(new Request('http://localhost/css/started'));
  assert.deepEqual(await first.json(), { visits: 1, id: 'string', getId: 'undefined', isStarted: true });
  const cookie = first.headers.getSetCookie().map((line) => line.split(';')[0]).join('; ');
  const again: Response = await app.fetch(new Request('http://localhost/css/started', { headers: { cookie } }));
  assert.deepEqual(await again.json(), { visits: 2, id: 'string', getId: 'undefined', isStarted: true });
  const unstarted: Response = await app.fetch(new Request('http://localhost/css/unstarted', { headers: { cookie, accept: 'application/json' } }));
  assert.equal(unstarted.status, 500);
  assert.match((await unstarted.json()).detail, /await startSession\(request\)/);
});
