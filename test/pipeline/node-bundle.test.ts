import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import type * as Library from '../../src/index.ts';
import type * as NodeEntry from '../../src/runtime/node.ts';

/**
 * The listeners' observable effects through the built bundles (dist/index.js + dist/node.js, made by
 * `npm test`'s build step) over a real socket, beside the in-process tests of test/listeners/.
 */
const lib: typeof Library = await import('../../dist/index.js' as string);
const nodeEntry: typeof NodeEntry = await import('../../dist/node.js' as string);
const { createApp, HttpResponse, logIn, getMember } = lib;

let server: NodeEntry.NodeServer;

const routes: Library.RouteDefinition[] = [
  { name: 'plain', path: '/plain', methods: ['GET'], controller: () => HttpResponse.text('plain') },
  { name: 'visit', path: '/visit', methods: ['GET'], controller: (r) => { const s = r.getSession(); s.set('n', Number(s.get('n') ?? 0) + 1); return HttpResponse.json({ n: s.get('n') }); } },
  {
    name: 'login', path: '/login', methods: ['POST'],
    controller: (r) => { logIn(r, { memberId: r.request.getString('member'), irmsToken: r.request.getString('token'), roles: ['ROLE_MEMBER'], rememberMe: r.request.get('remember') === true }); return HttpResponse.json({ ok: true }); },
  },
  { name: 'account', path: '/account', methods: ['GET'], controller: (r) => HttpResponse.json({ member_id: getMember(r)?.memberId }), options: { requiresLogin: true } },
  { name: 'echo', path: '/echo', methods: ['POST', 'PUT'], controller: (r) => HttpResponse.json({ method: r.method, params: r.request.all() }) },
  { name: 'hello', path: '/hello/:_locale', methods: ['GET'], controller: (r) => HttpResponse.text(r.locale) },
  { name: 'etag', path: '/etag', methods: ['GET'], controller: () => HttpResponse.text('tagged'), options: { cache: { etag: 'v1', maxAge: 60, public: true } } },
  { name: 'page', path: '/page/:name', methods: ['GET'], controller: (r) => ({ name: r.attributes.get('name') }), options: { template: (data: Record<string, unknown>) => `<h1>${String(data.name).replace(/</g, '&lt;')}</h1>` } },
  { name: 'item', path: '/items/:id', methods: ['GET'], controller: (r) => HttpResponse.json({ id: r.attributes.get('id') }), options: { converters: { id: 'int' } } },
  { name: 'owner', path: '/owner', methods: ['GET'], controller: () => HttpResponse.text('mine'), options: { security: ({ member }: { member: unknown }) => member !== null && false } },
  { name: 'admin', path: '/admin-area', methods: ['GET'], controller: () => HttpResponse.text('admin'), options: { isGranted: 'ROLE_ADMIN' } },
];

before(async () => {
  const app = createApp({ env: 'dev', routes, logSink: () => {}, environment: { APP_SECRET: 'bundle-secret', BODY_LIMIT: '1kb', LOG_LEVEL: 'warning' } });
  server = await nodeEntry.serve(app, { port: 0, handleSignals: false });
});
after(() => server.close(1000));

interface Reply { status: number; headers: Record<string, string | string[] | undefined>; body: string; cookies: string[] }

function send(method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, method, path, headers: { host: 'localhost', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString(), cookies: res.headers['set-cookie'] ?? [] }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const cookie = (r: Reply, name: string) => r.cookies.find((c) => c.startsWith(`${name}=`));
const json = { 'content-type': 'application/json' };

test('bundle: every response carries X-Robots-Tag: noindex and Cache-Control defaults; anonymous requests get no cookie', async () => {
  for (const [method, path] of [['GET', '/plain'], ['GET', '/nope'], ['GET', '/hello'], ['DELETE', '/plain']]) {
    const r = await send(method, path);
    assert.equal(r.headers['x-robots-tag'], 'noindex', `${method} ${path}`);
    assert.deepEqual(r.cookies, [], `${method} ${path}`);
  }
  assert.equal((await send('GET', '/plain')).headers['cache-control'], 'no-cache, private');
});

test('bundle: a used session sets an HttpOnly, SameSite=Lax cookie and private cache headers; the session persists', async () => {
  const first = await send('GET', '/visit');
  const line = cookie(first, 'IRMSSESSID');
  assert.ok(line, 'session cookie');
  assert.match(line!, /; path=\/; httponly; samesite=lax$/);
  assert.equal(first.headers['cache-control'], 'max-age=0, must-revalidate, private');
  const sid = line!.slice('IRMSSESSID='.length, line!.indexOf(';'));
  assert.ok(sid.length >= 22, 'at least 128 bits');
  assert.deepEqual(JSON.parse((await send('GET', '/visit', { cookie: `IRMSSESSID=${sid}` })).body), { n: 2 });
  const forged = await send('GET', '/visit', { cookie: 'IRMSSESSID=chosen-by-the-client-0000000000' });
  assert.ok(!cookie(forged, 'IRMSSESSID')!.includes('chosen-by-the-client'), 'an unknown id is never adopted');
});

test('bundle: login rotates the session id and sets a remember-me cookie; requiresLogin answers 401 (HEAD too) until then', async () => {
  assert.equal((await send('GET', '/account', { accept: 'application/json' })).status, 401);
  const head = await send('HEAD', '/account');
  assert.equal(head.status, 401);
  assert.equal(head.body, '');
  const visit = await send('GET', '/visit');
  const before = cookie(visit, 'IRMSSESSID')!.split(';')[0];
  const login = await send('POST', '/login', { ...json, cookie: before }, JSON.stringify({ member: '42', token: 'tok-secret', remember: true }));
  assert.equal(login.status, 200);
  const after = cookie(login, 'IRMSSESSID')!.split(';')[0];
  assert.notEqual(after, before, 'the id rotates on login');
  assert.ok(cookie(login, 'REMEMBERME'), 'remember-me cookie');
  assert.deepEqual(JSON.parse((await send('GET', '/account', { cookie: after })).body), { member_id: '42' });
  assert.equal((await send('GET', '/admin-area', { cookie: after })).status, 403, 'isGranted: a member without the role');
  assert.equal((await send('GET', '/admin-area')).status, 401, 'isGranted: anonymous');
});

test('bundle: JSON bodies become parameters; bad JSON is a plain 400; bodies over BODY_LIMIT are 413', async () => {
  assert.deepEqual(JSON.parse((await send('POST', '/echo', json, '{"a":{"b":1}}')).body).params, { a: { b: 1 } });
  const bad = await send('POST', '/echo', json, '{bad');
  assert.equal(bad.status, 400);
  assert.equal(bad.body, 'Unable to parse request.');
  assert.equal((await send('POST', '/echo', json, JSON.stringify({ big: 'x'.repeat(2000) }))).status, 413);
  assert.equal((await send('POST', '/echo', { ...json, 'transfer-encoding': 'chunked' }, JSON.stringify({ big: 'x'.repeat(2000) }))).status, 413);
});

test('bundle: method override, locale from the route, ETag 304, template, converter 404, security 401', async () => {
  assert.equal(JSON.parse((await send('POST', '/echo', { 'x-http-method-override': 'put' }, '')).body).method, 'PUT');
  assert.equal((await send('POST', '/echo', { 'x-http-method-override': 'P T' }, '')).status, 400);
  assert.equal((await send('GET', '/hello/fr')).body, 'fr');
  const tagged = await send('GET', '/etag');
  assert.equal(tagged.headers.etag, '"v1"');
  assert.equal((await send('GET', '/etag', { 'if-none-match': '"v1"' })).status, 304);
  const page = await send('GET', '/page/%3Cb%3E');
  assert.equal(page.status, 200);
  assert.match(page.body, /<h1>&lt;b><\/h1>/);
  assert.equal((await send('GET', '/items/12')).body, '{"id":12}');
  assert.equal((await send('GET', '/items/abc', { accept: 'application/json' })).status, 404);
  assert.equal((await send('GET', '/owner', { accept: 'application/json' })).status, 401);
});

test('bundle: a client leaving mid-body is logged at ERROR as a 400, never at CRITICAL as a 500', async () => {
  const lines: string[] = [];
  const app = createApp({ env: 'dev', routes, logSink: (l) => lines.push(l), environment: { LOG_LEVEL: 'warning', LOG_FORMAT: 'json' } });
  const own = await nodeEntry.serve(app, { port: 0, handleSignals: false });
  try {
    for (const leave of ['half-close', 'reset'] as const) {
      const before = lines.length;
      await new Promise<void>((resolve) => {
        const socket = connect(own.port, '127.0.0.1');
        socket.on('error', () => {});
        socket.on('close', () => resolve());
        socket.write('POST /echo HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"member":');
        setTimeout(() => (leave === 'reset' ? socket.resetAndDestroy() : socket.end()), 100);
        setTimeout(() => socket.destroy(), 2000);
      });
      const deadline = Date.now() + 2000;
      while (lines.length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      const logged = lines.slice(before).map((l) => JSON.parse(l) as { channel: string; level_name: string; message: string });
      assert.ok(logged.some((r) => r.level_name === 'ERROR' && r.message.includes('The request body could not be read completely')), `${leave}: ${JSON.stringify(logged)}`);
      assert.ok(!logged.some((r) => r.level_name === 'CRITICAL'), `${leave}: ${JSON.stringify(logged)}`);
    }
    assert.equal((await new Promise<number>((resolve, reject) => httpRequest({ host: '127.0.0.1', port: own.port, path: '/plain' }, (res) => { res.resume(); resolve(res.statusCode!); }).on('error', reject).end())), 200);
  } finally {
    await own.close(1000);
  }
});

test('bundle: an HTTP/1.0 request without Host gets the connection\'s local address in its URLs (Symfony\'s SERVER_ADDR), not "http:///"', async () => {
  const reply = await new Promise<string>((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let data = '';
    socket.on('data', (c) => (data += c.toString('latin1')));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    socket.write('GET /plai HTTP/1.0\r\n\r\n');
  });
  assert.match(reply, /^HTTP\/1\.1 404 /);
  const exception = /\r\nx-debug-exception: ([^\r]*)\r\n/i.exec(reply)?.[1] ?? '';
  assert.equal(decodeURIComponent(exception), `No route found for "GET http://127.0.0.1:${server.port}/plai"`);
  assert.match(reply, new RegExp(`\\r\\nx-debug-token-link: http://127\\.0\\.0\\.1:${server.port}/_profiler/[0-9a-f]{6}\\r\\n`, 'i'));
});

/** Everything one raw connection receives for `bytes`, until the server closes it. */
function rawExchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let data = '';
    const timer = setTimeout(() => socket.destroy(new Error(`no close after ${JSON.stringify(bytes)}`)), 3000);
    socket.on('data', (c) => (data += c.toString('latin1')));
    socket.on('close', () => (clearTimeout(timer), resolve(data)));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

test('regression: HEAD on Node answered Content-Length 0 instead of the GET length (bundle, debug mode)', async () => {
  for (const path of ['/items/12', '/plain', '/hello/fr']) {
    const get = await send('GET', path);
    const head = await send('HEAD', path);
    assert.equal(head.status, 200, path);
    assert.equal(head.body, '', path);
    assert.equal(get.headers['content-length'], String(Buffer.byteLength(get.body)), path);
    assert.equal(head.headers['content-length'], get.headers['content-length'], path);
    assert.equal(head.headers['content-type'], get.headers['content-type'], path);
  }
  // Keep-alive framing: the HEAD answer ends at its headers; the GET after it on the same connection is read whole.
  const both = await rawExchange('HEAD /items/12 HTTP/1.1\r\nHost: localhost\r\n\r\nGET /items/12 HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
  const answers = both.split(/(?=HTTP\/1\.1 )/);
  assert.equal(answers.length, 2, both);
  assert.match(answers[0], /\r\ncontent-length: 9\r\n[^]*\r\n\r\n$/i);
  assert.match(answers[1], /\r\ncontent-length: 9\r\n[^]*\r\n\r\n\{"id":12\}$/i);
});

test('regression: lower-case and unknown methods on Node got a bare 400 instead of a 405 with Allow (bundle)', async () => {
  for (const line of ['get /plain HTTP/1.1', 'BREW /plain HTTP/1.1', 'FOO / HTTP/1.1']) {
    const reply = await rawExchange(`${line}\r\nHost: localhost\r\n\r\n`);
    assert.match(reply, /^HTTP\/1\.1 405 Method Not Allowed\r\n/, line);
    assert.match(reply, /\r\nAllow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, PURGE\r\n/, line);
    assert.match(reply, /\r\nX-Robots-Tag: noindex\r\n/, line);
    assert.match(reply, /\r\nConnection: close\r\n/, line);
  }
  assert.match(await rawExchange('\x00\x01\x02\r\n\r\n'), /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.equal((await send('GET', '/plain')).body, 'plain');
});

test('regression: serve(app, { adapter: \'hono\' }) from dist/node.js failed with "Dynamic require of @hono/node-server"', async () => {
  const app = createApp({ env: 'prod', routes, logSink: () => {}, environment: { APP_SECRET: 'bundle-secret' } });
  const hono = await nodeEntry.serve(app, { port: 0, adapter: 'hono', handleSignals: false });
  try {
    const res = await fetch(`http://127.0.0.1:${hono.port}/plain`);
    assert.equal(res.status, 200);
    assert.equal(await res.text(), 'plain');
    assert.equal((await fetch(`http://127.0.0.1:${hono.port}/nowhere`)).status, 404);
  } finally {
    await hono.close(1000);
  }
});

test('the hono adapter, where @hono/node-server is not installed, says which package it needs', async () => {
  const { mkdtempSync, copyFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const dir = mkdtempSync(join(tmpdir(), 'irms-no-hono-'));
  try {
    // The bundle alone, outside this repository: no node_modules to find the package in.
    copyFileSync(new URL('../../dist/node.js', import.meta.url), join(dir, 'node.mjs'));
    const isolated: typeof NodeEntry = await import(join(dir, 'node.mjs'));
    const app = createApp({ env: 'prod', routes, logSink: () => {}, environment: { APP_SECRET: 'bundle-secret' } });
    await assert.rejects(isolated.serve(app, { port: 0, adapter: 'hono', handleSignals: false }), /needs the @hono\/node-server package.*npm i @hono\/node-server/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
