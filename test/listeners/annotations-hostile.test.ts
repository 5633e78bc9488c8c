// Route options (cache, security, isGranted, template, converters) meeting odd values and hostile paths,
// in both modes: production leaves idle listeners out (app/controller-plan.ts), debug never does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, signMemberToken, type KernelRequest, type RouteDefinition } from '../../src/index.ts';
import { send, testApp } from '../pipeline/harness.ts';

const MODES = [{ env: 'dev' }, { env: 'prod', debug: false }] as const;

function apps(routes: RouteDefinition[]) {
  return MODES.map((mode) => ({ mode: mode.env, app: testApp({ ...mode, routes }).app }));
}

const byId = (value: unknown) => ({ id: Number(value), name: `Member ${String(value)}` });

test('regression: an etag computed from a route value with a line break or a character beyond Latin-1 is a header, not a 500', async () => {
  const routes: RouteDefinition[] = [
    { name: 'post', path: '/posts/:slug', controller: () => HttpResponse.text('post'), options: { cache: { etag: (r: KernelRequest) => String(r.attributes.get('slug')) } } },
  ];
  for (const { mode, app } of apps(routes)) {
    const cases: [string, string][] = [
      ['/posts/a%0D%0ASet-Cookie:%20x=1', '"a%0D%0ASet-Cookie:%20x=1"'],
      ['/posts/%E2%82%AC', '"%E2%82%AC"'],
      ['/posts/plain-v1', '"plain-v1"'],
    ];
    for (const [path, etag] of cases) {
      const fresh = await send(app, path);
      assert.equal(fresh.status, 200, `${mode} ${path}`);
      assert.equal(fresh.headers.get('etag'), etag, `${mode} ${path}`);
      assert.equal(fresh.headers.get('set-cookie'), null);
      // The tag the client got back makes the same request conditional.
      const again = await send(app, path, { headers: { 'if-none-match': etag } });
      assert.equal(again.status, 304, `${mode} ${path}`);
    }
  }
});

test('regression: a security predicate saw the raw route parameters, not the converted ones', async () => {
  const routes: RouteDefinition[] = [
    { name: 'owned', path: '/owned/:id', controller: () => HttpResponse.text('allowed'), options: { converters: { id: 'int' }, security: { predicate: ({ member, params }) => member !== null && params.id === 7, statusCode: 404 } } },
    { name: 'entity', path: '/entity/:member', controller: () => HttpResponse.text('allowed'), options: { converters: { member: async (v: unknown) => byId(v) }, security: { predicate: ({ member, params }) => member !== null && (params.member as { id?: unknown }).id === 7, statusCode: 404 } } },
  ];
  for (const { mode, app } of apps(routes)) {
    const headers = { authorization: `Bearer ${await signMemberToken(app, { memberId: 'm7' })}` };
    assert.equal((await send(app, '/owned/7', { headers })).status, 200, mode);
    assert.equal((await send(app, '/owned/8', { headers })).status, 404, mode);
    assert.equal((await send(app, '/entity/7', { headers })).status, 200, mode);
    assert.equal((await send(app, '/entity/8', { headers })).status, 404, mode);
  }
});

test('regression: a template given no data rendered the raw route parameters, not the converted ones', async () => {
  const routes: RouteDefinition[] = [
    {
      name: 'profile',
      path: '/profile/:member',
      controller: () => null,
      options: { converters: { member: async (v: unknown) => byId(v) }, template: (data) => `<p>${(data.member as { name?: string }).name}</p>` },
    },
  ];
  for (const { mode, app } of apps(routes)) {
    const response = await send(app, '/profile/5');
    assert.equal(response.status, 200, mode);
    assert.match(await response.text(), /^<p>Member 5<\/p>/, mode);
  }
});

test('regression: a statusCode of null or 0 on isGranted or security was a bare 500, not Symfony\'s 401/403', async () => {
  const deny = () => false;
  const routes: RouteDefinition[] = [
    { name: 'null_code', path: '/null', controller: () => HttpResponse.text('secret'), options: { isGranted: { attributes: 'ROLE_ADMIN', statusCode: null as never } } },
    { name: 'zero_code', path: '/zero', controller: () => HttpResponse.text('secret'), options: { security: { predicate: deny, statusCode: 0 } } },
    { name: 'text_code', path: '/text', controller: () => HttpResponse.text('secret'), options: { security: { predicate: deny, statusCode: '410' as never } } },
  ];
  for (const { mode, app } of apps(routes)) {
    for (const path of ['/null', '/zero']) {
      const response = await send(app, path, { headers: { accept: 'application/json' } });
      assert.equal(response.status, 401, `${mode} ${path}`);
      assert.equal((await response.json()).title, 'Unauthorized');
    }
    // PHP reads the string as the integer it spells.
    const member = await signMemberToken(app, { memberId: 'm' });
    assert.equal((await send(app, '/text', { headers: { accept: 'application/json', authorization: `Bearer ${member}` } })).status, 410, mode);
  }
});

test('regression: a huge maxAge went out as max-age="1e+21"', async () => {
  const routes: RouteDefinition[] = [
    { name: 'forever', path: '/forever', controller: () => HttpResponse.text('x'), options: { cache: { maxAge: 1e21, sMaxAge: 2 ** 70, public: true } } },
  ];
  for (const { mode, app } of apps(routes)) {
    const response = await send(app, '/forever');
    assert.equal(response.headers.get('cache-control'), 'max-age=1000000000000000000000, public, s-maxage=1180591620717411303424', mode);
  }
});

test('regression: a template that returned an object (an HttpResponse, a Fetch Response) was a 200 "[object Object]" page', async () => {
  const routes: RouteDefinition[] = [
    { name: 'wrong', path: '/wrong', controller: () => ({}), options: { template: () => HttpResponse.text('x') as never } },
    { name: 'fetch', path: '/fetch', controller: () => ({}), options: { template: async () => new Response('x') as never } },
    { name: 'number', path: '/number', controller: () => ({}), options: { template: () => 42 as never } },
    { name: 'nothing', path: '/nothing', controller: () => ({}), options: { template: () => undefined as never } },
  ];
  for (const { mode, app } of apps(routes)) {
    for (const path of ['/wrong', '/fetch']) {
      const response = await send(app, path, { headers: { accept: 'application/json' } });
      assert.equal(response.status, 500, `${mode} ${path}`);
      assert.doesNotMatch(await response.text(), /\[object Object\]/);
    }
    // Scalars and null are content, as Response::setContent takes them.
    assert.equal(await (await send(app, '/number')).text().then((t) => t.slice(0, 2)), '42', mode);
    assert.equal((await send(app, '/nothing')).status, 200, mode);
  }
});

test('regression: template: \'\' rendered a template named "" instead of the guessed one (the route name)', async () => {
  const names: string[] = [];
  const routes: RouteDefinition[] = [{ name: 'members_list', path: '/members', controller: () => ({}), options: { template: '' } }];
  for (const mode of MODES) {
    const { app } = testApp({ ...mode, routes, renderTemplate: (name) => (names.push(name), `<p>${name}</p>`) });
    assert.equal((await send(app, '/members')).status, 200, mode.env);
  }
  assert.deepEqual(names, ['members_list', 'members_list']);
});

test('regression: isGranted with message \'\' denied with an empty message, not Sensio\'s default one', async () => {
  const routes: RouteDefinition[] = [{ name: 'admin', path: '/admin', controller: () => HttpResponse.text('secret'), options: { isGranted: { attributes: 'ROLE_ADMIN', message: '' } } }];
  const { app } = testApp({ routes });
  const user = await signMemberToken(app, { memberId: 'u', roles: ['ROLE_USER'] });
  const denied = await send(app, '/admin', { headers: { authorization: `Bearer ${user}`, accept: 'application/json' } });
  assert.equal(denied.status, 403);
  assert.equal((await denied.json()).detail, 'Access Denied by controller annotation @IsGranted("ROLE_ADMIN")');
});
