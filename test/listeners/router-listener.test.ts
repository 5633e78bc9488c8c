import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HttpResponse, type KernelRequest } from '../../src/index.ts';
import { records, send, testApp } from '../pipeline/harness.ts';

/** A GET with the target exactly as given, as Node's parser or Deno hands it over (no URL parser in between). */
function rawSource(target: string) {
  return {
    method: 'GET', target, scheme: 'http' as const, fallbackHost: 'localhost', remoteAddress: '127.0.0.1', protocol: 'HTTP/1.1',
    header: (n: string) => (n === 'host' ? 'localhost' : null), headers: () => [['host', 'localhost']] as [string, string][], body: () => null,
  };
}

/** An app whose only route is `/dir/`: `/dir` is answered by the trailing-slash redirect. */
function dirApp() {
  return testApp({ routes: [{ name: 'dir', path: '/dir/', methods: ['GET'], controller: () => HttpResponse.text('dir') }] });
}

/** Each raw target gets a 301 to exactly this Location. */
async function assertRedirects(app: ReturnType<typeof testApp>['app'], cases: [string, string][]) {
  for (const [target, location] of cases) {
    const { response } = await app.handle(rawSource(target));
    assert.equal(response.status, 301, target);
    assert.equal(response.headers.get('location'), location, target);
  }
}

function matchedRoute(lines: string[]) {
  return records(lines).find((r) => r.message.startsWith('Matched route'));
}

test('"Matched route" logs the route parameters with _route and _controller, as Symfony does', async () => {
  const { app, lines } = testApp({
    logFormat: 'json',
    logLevel: 'info',
    routes: [{ name: 'member', path: '/members/:id/:tab', controller: function showMember(_r: KernelRequest) { return HttpResponse.text('ok'); } }],
  });
  await send(app, '/members/7/orders?x=1');
  const record = matchedRoute(lines)!;
  assert.equal(record.message, 'Matched route "member".');
  assert.equal(record.channel, 'request');
  assert.deepEqual(record.context.route_parameters, { id: '7', tab: 'orders', _route: 'member', _controller: 'showMember' });
  assert.equal(record.context.request_uri, 'http://localhost/members/7/orders?x=1');
  assert.equal(record.context.method, 'GET');
});

test('regression: a raw emoji in the target of a trailing-slash redirect (as Deno hands it over) was a 500 URIError; now a 301 with it percent-encoded', async () => {
  const { app, lines } = dirApp();
  const cases: [string, string][] = [
    ['/dir?q=\u{1F600}', 'http://localhost/dir/?q=%F0%9F%98%80'],
    ['/dir?q=caf\u00e9 x', 'http://localhost/dir/?q=caf%C3%A9%20x'],
    ['/dir?q=\ud800', 'http://localhost/dir/?q=%EF%BF%BD'],
  ];
  await assertRedirects(app, cases);
  assert.ok(!lines.some((l) => l.includes('CRITICAL') || l.includes('URIError')), lines.join('\n'));
});

test('regression: a trailing-slash redirect echoed `"`, `<`, `>` and other characters URIs do not allow raw into Location; they are percent-encoded', async () => {
  const { app } = dirApp();
  const cases: [string, string][] = [
    ['/dir?end=<zq>"x', 'http://localhost/dir/?end=%3Czq%3E%22x'],
    ['/dir?a=`{|}^\\', 'http://localhost/dir/?a=%60%7B%7C%7D%5E%5C'],
    // What URIs allow stays as sent: the raw query string is kept (CONTRACT §4.2).
    ["/dir?a=1&b=%2F&c=!$'()*+,;=:@/?", "http://localhost/dir/?a=1&b=%2F&c=!$'()*+,;=:@/?"],
  ];
  await assertRedirects(app, cases);
});

test('regression: a secret query value was logged past its first quote (url and request_uri): `?token=abc\'HUNTER2` is masked whole', async () => {
  const { app, lines } = testApp({ logFormat: 'json', logLevel: 'debug', routes: [{ name: 'echo', path: '/echo', controller: () => HttpResponse.text('ok') }] });
  // The raw target, as Node's parser hands it over (a Fetch Request would percent-encode the quote).
  const target = "/echo?token=abc'HUNTER2&q=1&password=p#HUNTER3";
  const handled = await app.handle(rawSource(target));
  await handled.terminate?.();
  assert.ok(lines.length > 1);
  for (const line of lines) {
    assert.ok(!line.includes('HUNTER'), line);
    assert.equal(JSON.parse(line).extra.url, '/echo?token=***&q=1&password=***');
  }
});

test('regression: query-string secrets were written to the log stream unmasked ("Matched route" request_uri and every record\'s url)', async () => {
  for (const logFormat of ['json', 'line'] as const) {
    const { app, lines } = testApp({ logFormat, logLevel: 'debug', routes: [{ name: 'echo', path: '/echo', controller: () => HttpResponse.text('ok') }] });
    await send(app, '/echo?q=1&token=qtok&password=qpw', { method: 'POST' });
    assert.ok(lines.length > 1);
    for (const line of lines) assert.ok(!line.includes('qtok') && !line.includes('qpw'), line);
    const matched = lines.find((l) => l.includes('Matched route'))!;
    // The profiler's URL for this request reads `…/echo?password=***&q=1&token=***`: the log masks alike.
    const uri = '"request_uri":"http://localhost/echo?password=***&q=1&token=***"';
    const url = '"url":"/echo?q=1&token=***&password=***"';
    assert.ok(matched.includes(uri), matched);
    for (const line of lines) assert.ok(line.includes(url), line);
    if (logFormat === 'line') {
      assert.match(matched, /^\[[^\]]+\] request\.INFO: Matched route "echo"\. \{"route":"echo","route_parameters":\{"_route":"echo","_controller":"controller"\},"request_uri":"http:\/\/localhost\/echo\?password=\*\*\*&q=1&token=\*\*\*","method":"POST"\} \{"url":"\/echo\?q=1&token=\*\*\*&password=\*\*\*","http_method":"POST","request_id":"[^"]+"\}$/);
    }
  }
});

test('regression: CONTRACT §4.3 generateUrl(name, params, { absolute }) did not exist; a controller builds paths and absolute URLs of named routes', async () => {
  const { app } = testApp({
    routes: [
      { name: 'member', path: '/members/:id', controller: () => HttpResponse.text('member') },
      {
        name: 'links', path: '/links', controller: (r: KernelRequest) => HttpResponse.json({
          path: r.generateUrl('member', { id: 'a b', tab: 'x' }),
          absolute: r.generateUrl('member', { id: 7 }, { absolute: true }),
          profiler: r.generateUrl('_profiler', { token: 'abc123' }, { absolute: true }),
        }),
      },
    ],
  });
  const r = await send(app, 'http://example.test:8080/links');
  assert.deepEqual(await r.json(), {
    path: '/members/a%20b?tab=x',
    absolute: 'http://example.test:8080/members/7',
    profiler: 'http://example.test:8080/_profiler/abc123',
  });
  const token = r.headers.get('x-debug-token');
  assert.equal(r.headers.get('x-debug-token-link'), `http://example.test:8080/_profiler/${token}`, 'the token link is the same generator');
});

test('regression: generateUrl ignored the request locale for a _locale path variable (Symfony fills it from the router context)', async () => {
  const links = (r: KernelRequest) => HttpResponse.json({ same: r.generateUrl('about'), other: r.generateUrl('about', { _locale: 'de' }), plain: r.generateUrl('plain') });
  const { app } = testApp({
    routes: [
      { name: 'about', path: '/:_locale/about', controller: links },
      { name: 'plain', path: '/plain', controller: links },
    ],
  });
  assert.deepEqual(await (await send(app, '/fr/about')).json(), { same: '/fr/about', other: '/de/about', plain: '/plain' });
  assert.deepEqual(await (await send(app, '/plain')).json(), { same: '/en/about', other: '/de/about', plain: '/plain' }, 'the default locale otherwise');
});

test('regression: a secret in the Referer\'s query string reached the 404 message (page, header and log) unmasked', async () => {
  const { app, lines } = testApp({ logFormat: 'json' });
  const r = await send(app, '/missing', { headers: { referer: 'https://shop.test/cart?token=REFSECRET42&page=2' } });
  assert.equal(r.status, 404);
  assert.equal(decodeURIComponent(r.headers.get('x-debug-exception') ?? ''), 'No route found for "GET http://localhost/missing" (from "https://shop.test/cart?token=***&page=2")');
  assert.ok(!(await r.text()).includes('REFSECRET42'));
  assert.ok(!lines.some((l) => l.includes('REFSECRET42')), 'not logged');
});

test('regression: the trailing-slash redirect\'s "Matched route" lacked path, permanent, scheme and the ports RedirectableUrlMatcher lays over the route', async () => {
  const { app, lines } = testApp({
    logFormat: 'json',
    logLevel: 'info',
    routes: [{ name: 'team', path: '/teams/:path/', methods: ['GET'], controller: () => HttpResponse.text('team') }],
  });
  const response = await send(app, 'http://localhost:8080/teams/blue?x=1');
  assert.equal(response.status, 301);
  assert.equal(response.headers.get('location'), 'http://localhost:8080/teams/blue/?x=1', 'the redirect\'s path wins over a route variable of the same name');
  const record = matchedRoute(lines)!;
  assert.equal(record.message, 'Matched route "team".');
  assert.deepEqual(Object.entries(record.context.route_parameters as object), [
    ['_controller', 'Symfony\\Bundle\\FrameworkBundle\\Controller\\RedirectController::urlRedirectAction'],
    ['path', '/teams/blue/'],
    ['permanent', true],
    ['scheme', null],
    ['httpPort', 8080],
    ['httpsPort', 443],
    ['_route', 'team'],
  ]);

  const secure = testApp({ logFormat: 'json', logLevel: 'info', routes: [{ name: 'dir', path: '/dir/', methods: ['GET'], controller: () => HttpResponse.text('dir') }] });
  await send(secure.app, 'https://localhost:8443/dir');
  const ports = matchedRoute(secure.lines)!.context.route_parameters as Record<string, unknown>;
  assert.equal(ports.httpPort, 80);
  assert.equal(ports.httpsPort, 8443);
});

test('regression: a UTF-8 Referer was shown as mojibake in the 404 message and double-encoded in X-Debug-Exception', async () => {
  const { app, lines } = testApp({ logFormat: 'json' });
  // Header bytes arrive as Latin-1 characters: the UTF-8 `é` (C3 A9) is `Ã©` here, as hosts hand it over.
  const r = await send(app, '/missing', { headers: { referer: 'http://a.test/caf\u00c3\u00a9' } });
  assert.equal(r.status, 404);
  const header = r.headers.get('x-debug-exception') ?? '';
  assert.ok(header.endsWith('caf%C3%A9%22%29'), header);
  assert.equal(decodeURIComponent(header), 'No route found for "GET http://localhost/missing" (from "http://a.test/café")');
  const body = await r.text();
  assert.ok(body.includes('(from &quot;http://a.test/caf&#xE9;&quot;)'), 'the page shows é (as a reference: the page is ASCII)');
  assert.ok(!body.includes('a.test/caf\u00c3'), 'no mojibake on the page');
  assert.ok(lines.some((l) => l.includes('http://a.test/café')) && !lines.some((l) => l.includes('\u00c3')), 'logged decoded');

  // Bytes that are not UTF-8 are shown as sent (Latin-1), as the Host is.
  const latin1 = await send(app, '/missing', { headers: { referer: 'http://a.test/caf\u00e9' } });
  assert.equal(decodeURIComponent(latin1.headers.get('x-debug-exception') ?? ''), 'No route found for "GET http://localhost/missing" (from "http://a.test/café")');
});

test('regression: a trailing-slash redirect applied the target route\'s annotation options (401, 403, 404 or cache headers instead of the 301); Symfony\'s RedirectController carries none', async () => {
  const routeParams: unknown[] = [];
  const { app } = testApp({
    env: 'prod',
    routes: [
      { name: 'admin', path: '/admin/', controller: () => HttpResponse.text('admin'), options: { requiresLogin: true } },
      { name: 'roles', path: '/roles/', controller: () => HttpResponse.text('roles'), options: { isGranted: 'ROLE_ADMIN' } },
      { name: 'guarded', path: '/guarded/', controller: () => HttpResponse.text('guarded'), options: { security: () => false } },
      { name: 'cached', path: '/cached/', controller: () => HttpResponse.text('cached'), options: { cache: { maxAge: 600, public: true } } },
      { name: 'typed', path: '/typed/:id/', controller: () => HttpResponse.text('typed'), options: { converters: { id: 'int' } } },
    ],
    listeners: [{
      hook: 'kernel.controller',
      listener: { id: 'Spy::onKernelController', role: 'spy', call: (event) => { routeParams.push(event.request.attributes.get('_route_params')); } },
    }],
  });
  for (const path of ['/admin', '/roles', '/guarded', '/cached', '/typed/abc']) {
    const response = await send(app, path, { redirect: 'manual' });
    assert.equal(response.status, 301, path);
    assert.equal(response.headers.get('location'), `http://localhost${path}/`, path);
    assert.equal(response.headers.get('cache-control'), null, path);
  }
  // The target itself still applies them.
  assert.equal((await send(app, '/admin/')).status, 401);
  assert.equal((await send(app, '/cached/')).headers.get('cache-control'), 'max-age=600, public');
  // RouterListener's _route_params is the whole match minus _route and _controller: the redirect's keys first.
  assert.deepEqual(routeParams.find((p) => (p as { path?: string }).path === '/typed/abc/'), { path: '/typed/abc/', permanent: true, scheme: null, httpPort: 80, httpsPort: 443, id: 'abc' });
});

test('a trailing-slash redirect keeps the route\'s stateless option (Symfony\'s _stateless route default) and the application\'s own options', async () => {
  const seen: unknown[] = [];
  const { app } = testApp({
    env: 'prod',
    routes: [{ name: 'api', path: '/api/', controller: () => HttpResponse.text('api'), options: { stateless: true, requiresLogin: true, audit: 'x' } }],
    listeners: [{ hook: 'kernel.controller', listener: { id: 'Spy::onKernelController', role: 'spy', call: (event) => { seen.push(event.request.attributes.get('_route_options')); } } }],
  });
  assert.equal((await send(app, '/api', { redirect: 'manual' })).status, 301);
  assert.deepEqual(seen[0], { stateless: true, audit: 'x' });
});

test('regression: a Referer of "0" was quoted in the 404 message; RouterListener tests it with PHP\'s truth test, which "0" fails', async () => {
  const { app } = testApp();
  const zero = await send(app, '/missing', { headers: { referer: '0' } });
  assert.equal(decodeURIComponent(zero.headers.get('x-debug-exception') ?? ''), 'No route found for "GET http://localhost/missing"');
  const other = await send(app, '/missing', { headers: { referer: '00' } });
  assert.equal(decodeURIComponent(other.headers.get('x-debug-exception') ?? ''), 'No route found for "GET http://localhost/missing" (from "00")');
});

test('regression: "Matched route" listed the path variables before _route and _controller; Symfony\'s compiled match is _route, the defaults, _controller, then the other variables', async () => {
  const { app, lines } = testApp({
    logFormat: 'json',
    logLevel: 'info',
    routes: [{
      name: 'member', path: '/members/:id/:tab', defaults: { tab: 'profile', source: 'web' },
      controller: function showMember(request: KernelRequest) { return HttpResponse.text([...request.attributes.keys()].join(',')); },
    }],
  });
  const response = await send(app, '/members/7/orders');
  const record = matchedRoute(lines)!;
  assert.deepEqual(Object.entries(record.context.route_parameters as object), [
    ['_route', 'member'],
    ['tab', 'orders'],
    ['source', 'web'],
    ['_controller', 'showMember'],
    ['id', '7'],
  ]);
  // The request attributes are filled in the same order (`attributes->add($parameters)`), as the profiler lists them.
  assert.match(await response.text(), /^_route,tab,source,_controller,id,_route_params\b/);
});

test('regression: the trailing-slash redirect of `/dir?0` kept `?0`; PHP reads the query `0` as false, so Symfony\'s RedirectController takes the normalised `0=`', async () => {
  await assertRedirects(dirApp().app, [
    ['/dir?0', 'http://localhost/dir/?0='],
    ['/dir?00', 'http://localhost/dir/?00'],
    ['/dir?0=', 'http://localhost/dir/?0='],
    ['/dir?', 'http://localhost/dir/'],
  ]);
});

test('regression: a `_controller` route default (kept from a migrated Symfony route) replaced the route\'s controller: 404 "Unable to find the controller"', async () => {
  const { app } = testApp({
    routes: [{
      name: 'member', path: '/members/:id', defaults: { _controller: 'App\\Controller\\MemberController::show', _route: 'other', tab: 'profile' },
      controller: (request: KernelRequest) => HttpResponse.json({ route: request.attributes.get('_route'), params: request.attributes.get('_route_params') }),
    }],
  });
  const response = await send(app, '/members/7');
  assert.equal(response.status, 200);
  // RouterListener: `_route_params` is the match without `_route` and `_controller`.
  assert.deepEqual(await response.json(), { route: 'member', params: { tab: 'profile', id: '7' } });
});
