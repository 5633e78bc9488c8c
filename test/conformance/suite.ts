import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Target } from './targets.ts';

const decode = (h: string | undefined) => decodeURIComponent(h ?? '');

/** The newest stored profile once it is the one `wanted` describes (profiles are stored after the response). */
async function newestProfile(t: Target, wanted: (p: { method: string; url: string }) => boolean): Promise<{ method: string; url: string; status: number }> {
  let last = '';
  for (let attempt = 0; attempt < 100; attempt++) {
    const r = await t.send({ method: 'GET', target: '/_profiler/latest', headers: { accept: 'application/json' } });
    last = `${r.status} ${r.body.slice(0, 300)}`;
    if (r.status === 200) {
      const profile = JSON.parse(r.body) as { method: string; url: string; status: number };
      if (wanted(profile)) return profile;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`no such profile is the newest; last answer: ${last}`);
}
const escaped = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The service's observable contract (CONTRACT §4, §5 headers, §8.6, §9 robots), run unchanged against
 * the in-process app, the Node bundle and the Deno bundle.
 */
export function conformanceSuite(label: string, makeTarget: () => Promise<Target>): void {
  describe(`conformance: ${label}`, () => {
    let t: Target;
    before(async () => {
      t = await makeTarget();
    });
    after(async () => {
      await t?.close();
    });

    test('GET /robots.txt is a 404 naming the method and absolute URL', async () => {
      const r = await t.send({ method: 'GET', target: '/robots.txt' });
      assert.equal(r.status, 404);
      assert.match(r.headers['content-type'] ?? '', /^text\/html; charset=UTF-8$/i);
      const message = `No route found for "GET ${t.origin}/robots.txt"`;
      assert.equal(decode(r.headers['x-debug-exception']), message);
      assert.ok(r.body.includes(escaped(message)), 'page shows the message');
      assert.ok(r.body.includes(escaped('No routes found for "/robots.txt/".')), 'page shows the routing failure with the toggled path');
      assert.equal(r.headers['x-robots-tag'], 'noindex');
      assert.equal(r.headers['x-content-type-options'], 'nosniff');
    });

    test('the profile lists the request headers as the client sent them, credentials masked', async () => {
      const r = await t.send({ method: 'GET', target: '/robots.txt', headers: { 'x-conformance-probe': 'visible-value-42', authorization: 'Bearer CANARY-SECRET-1234' } });
      const token = r.headers['x-debug-token'] ?? '';
      assert.match(token, /^[0-9a-f]{6}$/);
      const page = await t.send({ method: 'GET', target: `/_profiler/${token}?panel=request` });
      assert.equal(page.status, 200);
      assert.ok(page.body.includes('x-conformance-probe'), 'header name shown');
      assert.ok(page.body.includes('visible-value-42'), 'header value shown');
      assert.ok(page.body.includes('Bearer ***'), 'credential masked');
      assert.ok(!page.body.includes('CANARY-SECRET-1234'), 'credential never stored');
    });

    test('regression: a request asking for an upgrade lost its profile on Deno (its headers were read after Deno closed it); now it is stored', async () => {
      const r = await t.send({ method: 'GET', target: '/robots.txt', headers: { connection: 'Upgrade, close', upgrade: 'websocket', 'x-conformance-probe': 'upgrade-probe-7' } });
      assert.equal(r.status, 404);
      const token = r.headers['x-debug-token'] ?? '';
      assert.match(token, /^[0-9a-f]{6}$/);
      const page = await t.send({ method: 'GET', target: `/_profiler/${token}?panel=request` });
      assert.equal(page.status, 200);
      assert.ok(page.body.includes('upgrade-probe-7'), 'the profile was stored, with the request headers');
    });

    test('regression: an empty Host gave URLs without a host ("http:///missing"); now the server\'s own authority, as Symfony\'s SERVER_NAME fallback', async () => {
      const r = await t.send({ method: 'GET', target: '/missing', headers: { host: '' } });
      assert.equal(r.status, 404);
      const message = decode(r.headers['x-debug-exception']);
      assert.match(message, /^No route found for "GET http:\/\/[^/"]+\/missing"$/, message);
      assert.match(r.headers['x-debug-token-link'] ?? '', /^http:\/\/[^/]+\/_profiler\/[0-9a-f]{6}$/);
    });

    test('regression: every profile on Deno had the IP "Unknown" (the peer address was asked after the response); it is the client\'s', async () => {
      const r = await t.send({ method: 'GET', target: '/ip-probe' });
      const token = r.headers['x-debug-token'] ?? '';
      const profile = await t.send({ method: 'GET', target: `/_profiler/${token}`, headers: { accept: 'application/json' } });
      assert.equal(profile.status, 200);
      assert.equal((JSON.parse(profile.body) as { ip: string }).ip, '127.0.0.1');
    });

    test('the Referer is appended to the 404 message', async () => {
      const r = await t.send({ method: 'GET', target: '/robots.txt', headers: { referer: 'X' } });
      assert.equal(r.status, 404);
      assert.equal(decode(r.headers['x-debug-exception']), `No route found for "GET ${t.origin}/robots.txt" (from "X")`);
    });

    test('the query string never appears in the not-found URL', async () => {
      const r = await t.send({ method: 'GET', target: '/wp-login.php?user=admin&x=1' });
      assert.equal(r.status, 404);
      assert.equal(decode(r.headers['x-debug-exception']), `No route found for "GET ${t.origin}/wp-login.php"`);
      assert.ok(!r.body.includes('user=admin'));
    });

    test('client leaving mid-body is a 400, never a 500 (Deno answered 500 for a truncated JSON body); regression: on Node its kernel.terminate never ran, so no profile of it', async () => {
      // The JSON body is read in kernel.request, before routing: any path will do.
      const sent = t.send({ method: 'POST', target: '/_profiler/', headers: { 'content-type': 'application/json' }, body: '{"member_id":', cutShort: true });
      if (t.closesOnClientHalfClose) await assert.rejects(sent, /incomplete response/);
      else assert.equal((await sent).status, 400);
      // What the service answered, as its profile recorded it (the only record where no answer could reach the client).
      assert.equal((await newestProfile(t, (p) => p.method === 'POST' && p.url.endsWith('/_profiler/'))).status, 400);
      // The service goes on answering.
      assert.equal((await t.send({ method: 'GET', target: '/robots.txt' })).status, 404);
    });

    test('POST to a GET-only route is a 405 with Allow', async () => {
      const r = await t.send({ method: 'POST', target: '/_profiler/abc123', body: '' });
      assert.equal(r.status, 405);
      assert.equal(r.headers['allow'], 'GET');
      assert.equal(decode(r.headers['x-debug-exception']), `No route found for "POST ${t.origin}/_profiler/abc123": Method Not Allowed (Allow: GET)`);
    });

    test('a missing trailing slash on a GET route redirects with 301 to the same origin', async () => {
      const r = await t.send({ method: 'GET', target: '/_profiler' });
      assert.equal(r.status, 301);
      assert.equal(r.headers['location'], `${t.origin}/_profiler/`);
      assert.equal(r.headers['x-robots-tag'], 'noindex');
    });

    test('regression: raw UTF-8 bytes of an emoji in a redirected target were a 500 on Deno; now a 301 with a percent-encoded Location (or the parser\'s 400)', async () => {
      // The target's bytes as written on the wire: F0 9F 98 80 (raw targets are sent as latin1 text).
      const emoji = Buffer.from('\u{1F600}', 'utf8').toString('latin1');
      for (const target of [`/_profiler?x=${emoji}`, `/_profiler?x=${emoji}&y=caf${Buffer.from('\u00e9', 'utf8').toString('latin1')}`]) {
        const r = await t.send({ method: 'GET', target });
        assert.ok(r.status === 301 || r.status === 400, `${r.status} ${r.body.slice(0, 200)}`);
        if (r.status === 301) assert.match(r.headers['location'] ?? '', new RegExp(`^${t.origin.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/_profiler/\\?x=%[\\x21-\\x7e]*$`));
      }
    });

    test('the trailing-slash redirect keeps the raw query string', async () => {
      const r = await t.send({ method: 'HEAD', target: '/_profiler?b=2&a=%20' });
      assert.equal(r.status, 301);
      assert.equal(r.headers['location'], `${t.origin}/_profiler/?b=2&a=%20`);
      assert.equal(r.body, '');
    });

    test('open redirect: GET //evil.com/ never redirects off-site', async () => {
      for (const target of ['//evil.com/', '//evil.com', '/\\evil.com', '/%2Fevil.com/', '/%5cevil.com']) {
        const r = await t.send({ method: 'GET', target });
        const location = r.headers['location'];
        if (location !== undefined) assert.ok(location.startsWith(`${t.origin}/`) && !/^\/[\/\\]/.test(location.slice(t.origin.length)), `${target} → ${location}`);
        assert.notEqual(r.status, 500);
      }
    });

    test('an invalid Host is a 400 with Symfony\'s message', async () => {
      const r = await t.send({ method: 'GET', target: '/', headers: { host: 'a b' } });
      assert.equal(r.status, 400);
      assert.equal(decode(r.headers['x-debug-exception']), 'Invalid Host "a b".');
      assert.ok(r.body.includes(escaped('Invalid Host "a b".')));
    });

    test('HTML in the Host header is escaped in the page and percent-encoded in the header', async () => {
      const r = await t.send({ method: 'GET', target: '/', headers: { host: '<script>alert(1)</script>' } });
      assert.equal(r.status, 400);
      assert.ok(!r.body.includes('<script>alert(1)'));
      assert.ok(!/[<>"\s]/.test(r.headers['x-debug-exception'] ?? ''));
    });

    test('HTML in the path and Referer is escaped on the error page', async () => {
      const r = await t.send({ method: 'GET', target: '/%3Cscript%3E<img>', headers: { referer: '"><svg onload=alert(1)>' } });
      assert.equal(r.status, 404);
      assert.ok(!r.body.includes('<svg onload'), 'referer escaped');
      assert.ok(!r.body.includes('<img>'), 'path escaped');
    });

    test('HEAD follows GET: same status and headers, no body', async () => {
      const r = await t.send({ method: 'HEAD', target: '/robots.txt' });
      assert.equal(r.status, 404);
      assert.equal(r.body, '');
      assert.match(r.headers['content-type'] ?? '', /text\/html/);
    });

    test('JSON bodies are read before routing: valid ones let routing go on, invalid ones are a 400, too long ones a 413', async () => {
      const json = { 'content-type': 'application/json' };
      const valid = await t.send({ method: 'POST', target: '/api/things', headers: json, body: '{"a":[1,2,3],"b":"é"}' });
      assert.equal(valid.status, 404, 'parsed, then not found');
      const invalid = await t.send({ method: 'POST', target: '/api/things', headers: json, body: '{"a":' });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body, 'Unable to parse request.');
      const tooLong = await t.send({ method: 'POST', target: '/api/things', headers: json, body: `"${'x'.repeat(1024 * 1024)}"` });
      assert.equal(tooLong.status, 413);
    });

    test('TRACE to a GET route is a 405, not an echo', async () => {
      const r = await t.send({ method: 'TRACE', target: '/_profiler/abc123', headers: { 'x-secret': 'hunter2' } });
      assert.equal(r.status, 405);
      assert.equal(r.headers['allow'], 'GET');
      assert.ok(!r.body.includes('hunter2'));
    });

    test('regression: TRACE and methods no route lists were a 404 on a path without routes; now a 405 with Allow everywhere (CONTRACT §8.6)', async () => {
      const defaults = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, PURGE';
      for (const [method, target] of [['TRACE', '/'], ['TRACE', '/robots.txt'], ['PROPFIND', '/robots.txt'], ['SEARCH', '/anything/else']]) {
        const r = await t.send({ method: method!, target: target!, headers: { 'x-secret': 'hunter2' } });
        assert.equal(r.status, 405, `${method} ${target}`);
        assert.equal(r.headers['allow'], defaults, `${method} ${target}`);
        assert.equal(r.headers['x-robots-tag'], 'noindex');
        assert.ok(!r.body.includes('hunter2'), 'no header is echoed');
      }
    });

    test('odd methods never crash the server', async () => {
      for (const method of ['get', 'FOO', 'CONNECT', 'PROPFIND']) {
        const target = method === 'CONNECT' ? 'example.com:443' : '/robots.txt';
        const r = await t.send({ method, target }).catch(() => null);
        if (r) assert.ok(r.status >= 400 && r.status < 600 && r.status !== 500, `${method} → ${r.status}`);
      }
      const alive = await t.send({ method: 'GET', target: '/robots.txt' });
      assert.equal(alive.status, 404);
    });

    test('GET with a body is served like any GET', async () => {
      const r = await t.send({ method: 'GET', target: '/robots.txt', body: 'hello' });
      assert.equal(r.status, 404);
    });

    test('a method override that is not letters only is a 400', async () => {
      const r = await t.send({ method: 'POST', target: '/anything', headers: { 'x-http-method-override': 'GE T' }, body: '' });
      assert.equal(r.status, 400);
      assert.equal(decode(r.headers['x-debug-exception']), 'Invalid method override "GE T".');
    });

    test('a method override to GET routes the request as GET', async () => {
      const r = await t.send({ method: 'POST', target: '/_profiler', headers: { 'x-http-method-override': 'get' }, body: '' });
      assert.equal(r.status, 301);
    });

    test('JSON clients get problem+json for routing errors', async () => {
      const r = await t.send({ method: 'GET', target: '/nope', headers: { accept: 'application/json' } });
      assert.equal(r.status, 404);
      assert.equal(r.headers['content-type'], 'application/problem+json');
      const problem = JSON.parse(r.body);
      assert.equal(problem.status, 404);
      assert.equal(problem.title, 'Not Found');
      assert.equal(problem.detail, `No route found for "GET ${t.origin}/nope"`);
    });
  });
}
