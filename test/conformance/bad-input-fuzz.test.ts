/**
 * A deterministic, seeded fuzz of bad-input handling (CONTRACT §10; the catalogue of
 * ../shared/research/security.md §0, §1 and §2). One fixed list of malformed or hostile requests —
 * odd methods and overrides, broken targets, bad Host and forwarded headers, cookie, Accept and
 * Accept-Language junk, bodies of every content type — goes unchanged to every app a user has: the
 * default app in debug and in production mode (also with a trusted proxy, so that the forwarded headers
 * are read, and with the file profiler store), the three example apps in both modes, in-process through
 * `app.handle` (so that what Fetch cannot express still reaches the kernel); the default debug app once
 * more through `app.fetch`; and once over raw sockets to `node dist/server.js`
 * (build it first: `node build.mjs --no-types`).
 *
 * Every answer must be below 500, with valid header values, without the marker unescaped in an HTML
 * body or anywhere in a header; in debug mode its profile must be stored and must not show the marker
 * unescaped either; no unhandled rejection or uncaught exception may happen, and `GET /` must answer
 * afterwards as it did before. A failure names the seed and the request, so it reproduces.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { connect } from 'node:net';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, HttpResponse, type App, type AppOptions } from '../../src/index.ts';
import { PANELS } from '../../src/debug/profiler/views/layout.ts';
import { createGuestbookApp } from '../../examples/guestbook/app.ts';
import { createNotesApp } from '../../examples/notes-api/app.ts';
import { createShopApp } from '../../examples/shop/app.ts';
import { parseResponse, type RawResponse } from '../support/raw-http.ts';
import { asClientSees, handMadeSource, processTarget, type Target } from './targets.ts';

const SEED = 0x1a2b3c4d;
/** Random combinations sent after the catalogue's single entries. */
const COMBOS = 150;

/** Unique, and dangerous when echoed raw into HTML: a tag, both quotes. */
const MARKER = `<x-fz id=1>"'`;
/** What the marker looks like unescaped in HTML (a tag opening, whatever follows it). */
const UNESCAPED = /<x-fz/i;
const MARKER_PCT = encodeURIComponent(MARKER); // %3Cx-fz%20id%3D1%3E%22'
/** The marker as Node lets it through in a raw target: `<`, `>`, `"` and `'` raw, the space encoded. */
const MARKER_RAW_TARGET = MARKER.replace(' ', '%20');

// ---------------------------------------------------------------------------------------------------
// The generator

/** mulberry32: a tiny seeded PRNG, so every run sends exactly the same requests. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Rng {
  next(): number;
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  /** The next `pick` takes `items[index]` instead of a random item, and records how many items it had. */
  force(index: number): void;
  /** The length of the list the last forced `pick` chose from (1 when no pick took it). */
  forcedLength(): number;
}

function rng(seed: number): Rng {
  const next = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  let forced: number | null = null;
  let length = 1;
  return {
    next,
    int,
    pick(items) {
      if (forced === null) return items[int(0, items.length - 1)]!;
      const index = forced;
      forced = null;
      length = items.length;
      return items[index % items.length]!;
    },
    chance: (p) => next() < p,
    force(index) {
      forced = index;
      length = 1;
    },
    forcedLength: () => length,
  };
}

/**
 * One request as written on the wire. Header values are byte strings (every code unit ≤ 0xFF), as
 * Node hands them over (latin1); a body is text (sent as UTF-8) or raw bytes.
 */
interface FuzzRequest {
  method: string;
  target: string;
  /** Lower-case names; `null` leaves the header out (Host). */
  headers: Record<string, string | null>;
  body?: string | Uint8Array;
  /** What was done to it, for the failure message. */
  mutations: string[];
}

/** The UTF-8 bytes of a string as a byte string: how Node shows non-ASCII header bytes. */
const bytes = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
const repeat = (s: string, n: number) => s.repeat(n);

/** Paths of every app under test (the default app's profiler, the three examples): one list for all. */
const PATHS = [
  '/', '/robots.txt', '/_profiler/', '/_profiler/latest', '/_profiler/search', '/_profiler/empty/search/results', '/_profiler/abc123',
  '/_profiler/latest/router', '/_profiler/latest/exception', '/_wdt/abc123', '/en/', '/fr/', '/en/entries/new', '/en/entries/1/edit',
  '/en/entries/1/delete', '/entries/1/image', '/en/login', '/login', '/logout', '/en/products', '/fr/products/1', '/en/products/1/buy',
  '/en/account', '/api/products', '/api/products/1', '/admin', '/admin/login', '/admin/logout', '/notes', '/notes/1', '/notes/1/download',
  '/health', '/wp-login.php',
  // Trailing-slash redirects (CONTRACT §4.2): each of these is answered 301 by one app.
  '/_profiler', '/en', '/fr/entries/new/', '/en/products/', '/notes/', '/health/',
] as const;
// Not /events (notes-api): a Server-Sent Events stream that never ends.

const METHODS = ['GET', 'GET', 'GET', 'POST', 'POST', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
const ODD_METHODS = ['get', 'Post', 'pOsT', 'head', 'FOO', 'PROPFIND', 'TRACE', 'TRACK', 'CONNECT', 'PURGE', 'M-SEARCH', 'SEARCH', 'BREW', "G'&*T", '|~^', 'X!#$%', '__proto__', 'constructor', 'G'.repeat(300), 'GET\u00e9', 'G\u0130T'];
const OVERRIDES = ['DELETE', 'get', 'PATCH', 'TRACE', 'CONNECT', 'GE T', 'G\tET', '', ' ', MARKER, '__proto__', 'constructor', 'hasOwnProperty', 'toString', 'X'.repeat(5000), '%47ET', bytes('GÉT'), 'PUT, DELETE', '1', 'post'];

type Mutator = (r: Rng, q: FuzzRequest) => void;

const jsonNest = (depth: number) => repeat('[', depth) + repeat(']', depth);
const objNest = (depth: number) => repeat('{"a":', depth) + '1' + repeat('}', depth);
const bracketNest = (depth: number) => 'a' + Array.from({ length: depth }, (_, i) => `[b${i}]`).join('') + '=1';

function multipart(boundary: string, parts: string[], end = true): string {
  return parts.map((p) => `--${boundary}\r\n${p}\r\n`).join('') + (end ? `--${boundary}--\r\n` : '');
}

function setBody(q: FuzzRequest, contentType: string | null, body: string | Uint8Array, method?: string) {
  if (method) q.method = method;
  else if (q.method === 'GET' || q.method === 'HEAD') q.method = 'POST';
  if (contentType !== null) q.headers['content-type'] = contentType;
  q.body = body;
}

/**
 * The catalogue: each entry changes one thing about a request. The list first applies each entry alone
 * to a plain request, once per item of the first list the entry picks from (so every item of those
 * lists is sent at least once: keep each entry's main list its first `pick`), then combines two or
 * three entries at random.
 */
const CATALOGUE: [string, Mutator][] = [
  // Methods
  ['odd method', (r, q) => void (q.method = r.pick(ODD_METHODS))],
  ['method override header', (r, q) => {
    q.method = 'POST';
    q.headers['x-http-method-override'] = r.pick(OVERRIDES);
    q.body ??= '';
  }],
  ['_method in body', (r, q) => setBody(q, 'application/x-www-form-urlencoded', `_method=${encodeURIComponent(r.pick(OVERRIDES))}&x=1`, 'POST')],
  ['_method in query', (r, q) => {
    q.method = 'POST';
    q.target += `${q.target.includes('?') ? '&' : '?'}_method=${encodeURIComponent(r.pick(OVERRIDES))}`;
    q.body ??= '';
  }],
  ['_method in JSON', (r, q) => setBody(q, 'application/json', JSON.stringify({ _method: r.pick(OVERRIDES) }), 'POST')],

  // Targets
  ['malformed escape', (r, q) => void (q.target = r.pick(['/%', '/%E0%A4%A', '/a%zz', '/%%36%31dmin', '/%C0%AF', '/%FF%FE', '/en/%', '/_profiler/%', '/_profiler/%E0%A4%A', '/notes/%', '/en/products/%ZZ', '/%u0041']) + (r.chance(0.3) ? '?q=%' : ''))],
  ['NUL and control escapes', (r, q) => void (q.target = r.pick(['/%00', '/en/%00/', '/_profiler/%00', '/a%0d%0aSet-Cookie:%20x=1', '/%0A', '/notes/1%00', '/?a=%00&b=%0d%0aX:%20y', '/_profiler/abc123%0d%0a']))],
  ['encoded slashes and dots', (r, q) => void (q.target = r.pick(['/%2F', '/en%2Fproducts', '/_profiler/..%2F..%2Fetc%2Fpasswd', '/_profiler/%2e%2e/%2e%2e/', '/%2e%2e/%2e%2e/etc/passwd', '/_profiler/%2E%2E%2F', '/admin%2F', '/%61dmin', '/ADMIN', '/admin/', '/admin;x', '/api/products%2F1']))],
  ['dot segments', (r, q) => void (q.target = r.pick(['/..', '/../..', '/_profiler/../admin', '/en/../admin', '/./en/products', '/api/../admin', '/.%2e/admin', '/admin/.', '/admin/..']))],
  ['double slash and backslash', (r, q) => void (q.target = r.pick(['//evil.com/', '//evil.com/%2e%2e', '///evil.com', '/\\evil.com/', '/%5Cevil.com/', '/%5cevil.com', '/%2F%2Fevil.com/', '/\\\\evil.com', '\\evil.com', '//en/products', '/en//products', '//_profiler/',
    '//evil.com/_profiler', '//evil.com/en', '///evil.com/en', '/\\evil.com/en', '/%2F%2Fevil.com/en', '/%5Cevil.com/en', '/\\/evil.com/_profiler', '//_profiler', '//en', '//health/', '/%2f/evil.com/notes/']) + (r.chance(0.3) ? '/' : ''))],
  ['not origin-form', (r, q) => void (q.target = r.pick(['*', 'http://evil.com/x', 'https://127.0.0.1:8000/', 'http://127.0.0.1:8000/_profiler/', 'example.com:443', 'abc', '?x=1', 'http:/x']))],
  ['long path', (r, q) => void (q.target = '/' + repeat(r.pick(['a', 'a/', '%41', '../', '%2F', 'é']), r.pick([2000, 5000, 15000])))],
  ['long query', (r, q) => void (q.target += `${q.target.includes('?') ? '&' : '?'}` + repeat(r.pick(['a=1&', 'x', '%25', 'a[]=1&', '&']), r.pick([2000, 5000])))],
  ['non-UTF-8 escapes', (r, q) => void (q.target = r.pick(['/%FF', '/en/%C3', '/%ED%A0%80', '/%F4%90%80%80', '/%C0%80', '/en/products/%E9', '/_profiler/%FF%FF%FF']) + r.pick(['', '?a=%FF', '?%FF=%FE', '?page=%E9']))],
  ['unicode', (r, q) => void (q.target = r.pick(['/é', '/😀', '/en/products/١', '/%F0%9F%98%80', '/\u2028', '/e\u0301', '/ＡＤＭＩＮ', '/ſ', '/admın']) + r.pick(['', '?q=😀', '?é=é']))],
  ['raw non-ASCII bytes', (r, q) => void (q.target = bytes(r.pick(['/é', '/😀/', '/en/products?q=ü'])))],
  ['prototype keys in query', (r, q) => void (q.target += `${q.target.includes('?') ? '&' : '?'}` + r.pick([
    'a[__proto__]=1&a[constructor][prototype][x]=1', '__proto__[x]=1', 'constructor[prototype][polluted]=1', '__proto__=1&toString=1&hasOwnProperty=1',
    'a[__proto__][__proto__]=1', 'a[]=1&a[__proto__]=2&a[length]=100000000', 'valueOf=1&_locale=__proto__', 'a[constructor]=1&a[prototype]=2',
  ]))],
  ['deep bracket nesting', (r, q) => void (q.target += `${q.target.includes('?') ? '&' : '?'}` + bracketNest(r.pick([20, 200, 1500])))],
  ['odd query syntax', (r, q) => void (q.target += `${q.target.includes('?') ? '&' : '?'}` + r.pick([
    '=&&=', 'a[=1', 'a]=1', 'a[b=1', 'a[]]=1', '[]=1', 'a[][]=1&a[][]=2', 'a[99999999]=1', 'a[-1]=1', 'a=1&a=2&a[]=3', 'page=-1', 'page=1e309',
    'page=99999999999999999999', 'page=0x10', 'panel=__proto__', 'panel=' + MARKER_PCT, 'ip=' + MARKER_PCT + '&url=' + MARKER_PCT + '&method=' + MARKER_PCT,
    '_locale=' + MARKER_PCT, 'limit=-1&offset=NaN', 'limit=1e9', 'q=%', 'a+b=c+d', ';a=1',
  ]))],
  ['marker in path', (r, q) => void (q.target = r.pick([
    `/${MARKER_PCT}`, `/${MARKER_RAW_TARGET}`, `/_profiler/${MARKER_PCT}`, `/_profiler/${MARKER_RAW_TARGET}`, `/_wdt/${MARKER_PCT}`, `/en/products/${MARKER_PCT}`,
    `/notes/${MARKER_PCT}`, `/${MARKER_PCT}/entries/new`, `/_profiler/latest/${MARKER_PCT}`, `/admin/${MARKER_RAW_TARGET}`, `/${MARKER_RAW_TARGET}/`,
  ]))],
  ['marker in query', (r, q) => void (q.target += `${q.target.includes('?') ? '&' : '?'}` + r.pick([`q=${MARKER_PCT}`, `${MARKER_PCT}=1`, `q=${MARKER_RAW_TARGET}`, `a[${MARKER_PCT}]=1`, `panel=${MARKER_PCT}`, `_target_path=${MARKER_PCT}`]))],
  ['profiler token junk', (r, q) => void (q.target = r.pick([
    '/_profiler/latest?panel=__proto__', '/_profiler/latest?panel=constructor', '/_profiler/latest?panel[]=x', '/_profiler/ABCDEF', '/_profiler/abc12', '/_profiler/abc1234',
    '/_profiler/search/results?ip=%FF&limit=-5', '/_profiler/empty/search/results?limit=99999999&start=x&end=%E0', '/_profiler/latest?type=' + MARKER_PCT, '/_profiler/search?token=' + MARKER_PCT,
    '/_wdt/latest', '/_wdt/%2e%2e', '/_profiler/__proto__', '/_profiler/constructor/router', '/_profiler/latest/exception?type=' + MARKER_PCT,
  ]))],

  // Host
  ['bad Host', (r, q) => void (q.headers.host = r.pick([
    '', 'a b', 'evil.com/x?', 'h:99999', '[::1', '[::1]:80', '[::1]]', 'trusted@evil.com', '127.0.0.1:8000:8000', '.', '..', 'a..b', '-', 'a_b.example',
    bytes('é.example'), 'EXAMPLE.com.', ':80', '127.0.0.1:', '127.0.0.1:-1', '127.0.0.1:0x50', 'localhost?foo=bar', MARKER, '%41.example', 'a\tb',
    repeat('a.', 3000) + 'a', repeat('a', 9000), repeat(':', 101), '__proto__', 'constructor:80',
  ]))],
  ['no Host', (_, q) => void (q.headers.host = null)],

  // Forwarded headers (only read from a trusted proxy: the trusted-proxy app below)
  ['forwarded junk', (r, q) => {
    const pick = r.pick([
      { forwarded: `for=${MARKER};proto=javascript;host=evil` },
      { forwarded: 'for="[::1' },
      { forwarded: 'for=1.2.3.4;host="a b";proto=https, for=unknown' },
      { forwarded: repeat('for=1.1.1.1,', 2000) },
      { forwarded: 'for=_hidden;by=_x;host=' + bytes('évil') },
      { forwarded: 'proto=https;host=evil.com', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'other.com' },
      { forwarded: 'for=1.2.3.4', 'x-forwarded-for': '5.6.7.8' },
      { 'x-forwarded-for': `1.2.3.4, ${MARKER}` },
      { 'x-forwarded-for': 'not-an-ip, ::ffff:127.0.0.1, [::1]:80, 999.1.1.1' },
      { 'x-forwarded-host': `evil.com/${MARKER}` },
      { 'x-forwarded-host': 'a b, c d' },
      { 'x-forwarded-host': repeat('h', 5000) },
      { 'x-forwarded-proto': 'gopher' },
      { 'x-forwarded-proto': 'https, http' },
      { 'x-forwarded-port': '99999' },
      { 'x-forwarded-port': 'abc' },
      { 'x-forwarded-port': '-1' },
      { 'x-forwarded-prefix': `/${MARKER}` },
      { 'x-forwarded-prefix': '//evil.com' },
      { 'x-original-url': '/_profiler/', 'x-rewrite-url': '/admin' },
      { 'x-forwarded-for': '', forwarded: '' },
    ]);
    Object.assign(q.headers, pick);
  }],

  // Cookies
  ['cookie junk', (r, q) => void (q.headers.cookie = r.pick([
    '=;=;;', ';;;;', 'IRMSSESSID=a; IRMSSESSID=b', `IRMSSESSID=${MARKER}`, 'IRMSSESSID=%', 'IRMSSESSID=%E0%A4%A', `IRMSSESSID=${repeat('a', 200)}`, 'IRMSSESSID=',
    '__proto__=x; constructor=y; toString=z', 'REMEMBERME=garbage.garbage', `REMEMBERME=${MARKER}`, 'REMEMBERME=a:b:c:d', 'REMEMBERME=' + repeat('A', 4000),
    repeat('c=1; ', 1500), 'a=' + repeat('x', 12000), bytes('é=ü; IRMSSESSID=ß'), `irms_token=${MARKER}; member_id=${MARKER}`, '"quoted"="v"; a="b', 'IRMSSESSID="abc"',
    '$Version=1; IRMSSESSID=abc; $Path=/', 'IRMSSESSID=abc,IRMSSESSID=def',
  ]))],

  // Accept, Accept-Language and other echoed headers
  ['accept junk', (r, q) => void (q.headers.accept = r.pick([
    'application/json;q=abc', '*/*;q=-1', 'text/html;q=0, application/json;q=1e9', MARKER, repeat('a/b,', 3000), 'application/problem+json', ',,,', ';;;', 'application/json, text/html;q=NaN',
    'text/html;level=1;q=0.5, */*;q=0.1', '__proto__/constructor', 'application/json;charset=' + MARKER, '*/*', 'text/*;q=1;q=0', '',
  ]))],
  ['accept-language junk', (r, q) => void (q.headers['accept-language'] = r.pick([
    MARKER, 'en-US;q=0.9,fr;q=x', '*', 'zz-ZZZZZZZZZZZZ', repeat('fr-FR;q=0.5,', 2000), '__proto__', 'constructor, toString', 'en_US', 'i-klingon', 'x-pig-latin', ';q=1', ',,', 'fr;q=1e999', bytes('fr-ç'),
  ]))],
  ['echoed headers', (r, q) => {
    const [name, value] = r.pick([
      ['referer', MARKER], ['referer', `http://evil.com/${MARKER}`], ['referer', repeat('r', 8000)], ['user-agent', MARKER], ['x-requested-with', 'XMLHttpRequest'],
      ['authorization', `Bearer ${MARKER}`], ['authorization', 'Basic %%%'], ['authorization', 'Bearer '], ['authorization', 'Bearer ' + repeat('t', 5000)], ['authorization', 'Negotiate x'],
      ['if-none-match', MARKER], ['if-modified-since', 'garbage'], ['if-modified-since', 'Tue, 99 Foo 99999 99:99:99 GMT'], ['range', 'bytes=-1-2,3-'], ['origin', MARKER],
      ['origin', 'null'], ['x-request-id', MARKER], [MARKER.replace(/[^a-z-]/g, ''), MARKER], ['__proto__', 'x'], ['constructor', 'y'], ['x-debug-token', MARKER],
      ['x-previous-debug-token', 'abc123'], ['access-control-request-method', MARKER], ['content-language', MARKER], ['expect', '100-continue'], ['te', 'trailers'],
      ['upgrade', 'websocket'], ['x-forwarded-for', '127.0.0.1'], ['x-http-method', 'DELETE'], ['cache-control', 'no-cache, max-age=-1'], ['pragma', MARKER],
    ] as const);
    q.headers[name] = value;
  }],

  // Bodies
  ['malformed JSON', (r, q) => {
    const body = r.pick([
      '{', '{"a":}', '[1,2', '"str"', '1', '-0', 'null', 'true', 'false', '', ' ', '{"a":1}garbage', '\uFEFF{"a":1}', "{'a':1}", '{"a":1,}', 'NaN', '[]', '{}', '{"a":"\\ud800"}',
      `{"q":"${MARKER.replace(/"/g, '\\"')}"}`, `{"${MARKER.replace(/"/g, '\\"')}":1}`, '{"a":1,"a":2}', '{"a":"\u0000"}',
    ]);
    setBody(q, r.pick(['application/json', 'application/x-json', 'application/json; charset=utf-8']), body);
  }],
  ['deep JSON', (r, q) => setBody(q, 'application/json', r.pick([jsonNest(511), jsonNest(513), jsonNest(5000), objNest(600), jsonNest(100000)]))],
  ['prototype keys in JSON', (r, q) => setBody(q, 'application/json', r.pick([
    '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '{"a":{"__proto__":{"isAdmin":true}}}', '[{"__proto__":null}]', '{"__proto__":[]}',
    '{"toString":1,"hasOwnProperty":2,"valueOf":3}', '{"_locale":"__proto__"}', '{"entry":{"__proto__":{"author":"x"}}}', '{"roles":["ROLE_ADMIN"],"member_id":"admin"}',
  ]))],
  ['huge numbers in JSON', (r, q) => setBody(q, 'application/json', r.pick([
    '{"a":1e999999}', '{"a":123456789012345678901234567890}', '{"price":-1e308,"name":"x"}', '[' + repeat('1,', 20000) + '1]', '{"a":' + repeat('9', 20000) + '}',
    '{"title":"' + repeat('t', 70000) + '","body":"x"}', '{"price":1e309,"name":"' + MARKER.replace(/"/g, '\\"') + '"}',
  ]))],
  ['invalid UTF-8 body', (r, q) => {
    const body = new Uint8Array(r.pick([[0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0x61, 0x3d, 0xff, 0x26, 0xc0, 0xaf, 0x3d, 0x31], [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x5b, 0x5d]]));
    setBody(q, r.pick(['application/json', 'application/x-www-form-urlencoded', 'text/plain', 'multipart/form-data; boundary=x']), body);
  }],
  ['content-type variants', (r, q) => setBody(q, r.pick([
    'application/json; charset=latin1', 'application/json; charset=utf-16', 'application/JSON', 'Application/Json', 'application/json garbage', 'application/json;;;', 'application/json\t',
    'application/jsonp', 'text/json', 'application/vnd.api+json', 'text/plain', '', 'constructor', '__proto__/x', 'toString', 'application/x-www-form-urlencoded; charset=utf-16',
    'multipart/form-data', 'multipart/form-data; boundary=', `multipart/form-data; boundary=${MARKER}`, 'multipart/mixed; boundary=x', 'application/json, text/html', MARKER,
    bytes('application/jsön'),
  ]), r.pick(['{"a":1}', '[1]', 'a=1&b=2', '--x\r\n\r\n--x--', MARKER, '']))],
  ['broken multipart', (r, q) => {
    const shape = r.pick<(b: string) => string>([
      (b) => multipart(b, ['Content-Disposition: form-data; name="a"\r\n\r\n1'], false),
      (b) => multipart(b, ['\r\nno headers']),
      (b) => multipart(b, ['Content-Disposition: form-data\r\n\r\nno name']),
      (b) => multipart(b, [`Content-Disposition: form-data; name="f"; filename="${MARKER}"\r\nContent-Type: ${MARKER}\r\n\r\n${MARKER}`]),
      (b) => multipart(b, ['Content-Disposition: form-data; name="__proto__"\r\n\r\nx', 'Content-Disposition: form-data; name="constructor[prototype][x]"\r\n\r\n1']),
      (b) => multipart(b, [`Content-Disposition: form-data; name="${bracketNest(300).slice(0, -2)}"\r\n\r\n1`]),
      (b) => multipart(b, ['Content-Disposition: form-data; name="_method"\r\n\r\n' + MARKER]),
      (b) => multipart(b, ['Content-Disposition: form-data; name="entry[author]"\r\n\r\n' + MARKER, 'Content-Disposition: form-data; name="entry[image]"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG']),
      (b) => multipart(b, [repeat('X-Junk: ' + repeat('h', 100) + '\r\n', 200) + 'Content-Disposition: form-data; name="a"\r\n\r\n1']),
      (b) => `--${b}\r\nContent-Disposition: form-data; name="a"\r\n\r\nno final boundary`,
      () => 'garbage before any boundary',
      (b) => multipart(b, Array.from({ length: 2000 }, (_, i) => `Content-Disposition: form-data; name="p${i}"\r\n\r\n${i}`)),
    ]);
    const boundary = r.pick(['x', '----WebKitFormBoundary7MA4YWxkTrZu0gW', repeat('b', 200), "quoted'b", 'a b']);
    setBody(q, r.pick([`multipart/form-data; boundary=${boundary}`, `multipart/form-data; boundary="${boundary}"`, 'multipart/form-data; boundary=other']), shape(boundary));
  }],
  ['urlencoded junk', (r, q) => setBody(q, 'application/x-www-form-urlencoded', r.pick([
    Array.from({ length: 5000 }, (_, i) => `k${i}=${i}`).join('&'), repeat('a[]=1&', 5000), 'a[__proto__][x]=1&__proto__[y]=2&constructor[prototype][z]=3', 'a=%&b=%E0%A4%A&c=%FF',
    bracketNest(1000), `entry[author]=${MARKER_PCT}&entry[message]=${MARKER_PCT}&entry[_token]=${MARKER_PCT}`, `_username=${MARKER_PCT}&_password=x&_csrf_token=${MARKER_PCT}`,
    `_target_path=${encodeURIComponent('//evil.com')}&_username=admin&_password=admin-pass`, '&&&===&&&', `title=${MARKER_PCT}&body=x`, `entry=${MARKER_PCT}&entry[a]=1`,
  ]))],
  ['marker in body', (r, q) => setBody(q, r.pick(['text/plain', 'text/html', 'application/xml', 'application/octet-stream', 'application/json']), r.pick([MARKER, JSON.stringify({ title: MARKER, body: MARKER, name: MARKER, price: 1 }), `<?xml version="1.0"?><a>${MARKER}</a>`]))],
  ['typed junk in JSON fields', (r, q) => {
    const junk = () => r.pick<unknown>([null, {}, [], true, 0, -1, 1e308, '', ' ', MARKER, 'x'.repeat(300), { __proto__: null, toString: 1 }, ['ROLE_ADMIN'], { title: MARKER }]);
    const fields = { title: junk(), body: junk(), name: junk(), price: junk(), entry: { author: junk(), message: junk() }, _username: junk(), _password: junk(), _csrf_token: junk() };
    setBody(q, 'application/json', JSON.stringify(fields), r.pick(['POST', 'PUT', 'PATCH']));
  }],
  ['API credentials', (r, q) => {
    // The example apps' bearer tokens (notes-api, shop), so that bodies reach their controllers.
    q.headers.authorization = `Bearer ${r.pick(['notes-writer-token', 'shop-api-token'])}`;
    if (r.chance(0.5)) q.headers.accept = 'application/json';
    if (r.chance(0.5)) setBody(q, 'application/json', JSON.stringify({ title: `n${r.int(0, 9)}`, body: MARKER, name: MARKER, price: r.pick([1, 0, -1, 9.99]) }), r.pick(['POST', 'PUT', 'PATCH']));
  }],
  ['large body', (r, q) => {
    const body = r.pick(['{"a":"' + repeat('x', 300 * 1024) + '"}', 'a=' + repeat('x', 80 * 1024), repeat(MARKER, 6000)]);
    setBody(q, r.pick(['application/json', 'application/x-www-form-urlencoded', 'text/plain']), body);
  }],
];

function generate(seed: number, combos: number): FuzzRequest[] {
  const r = rng(seed);
  const list: FuzzRequest[] = [];
  const base = (): FuzzRequest => ({ method: r.pick(METHODS), target: r.pick(PATHS), headers: {}, mutations: [] });
  const apply = (q: FuzzRequest, [name, mutate]: [string, Mutator]) => {
    mutate(r, q);
    q.mutations.push(name);
  };
  // Each catalogue entry on its own, once per item of its first list; then two or three entries together.
  for (const entry of CATALOGUE) {
    for (let k = 0, length = 1; k < length; k++) {
      const q = base();
      r.force(k);
      apply(q, entry);
      length = r.forcedLength();
      list.push(q);
    }
  }
  const singles = list.length;
  while (list.length < singles + combos) {
    const q = base();
    for (let n = r.int(2, 3); n > 0; n--) apply(q, r.pick(CATALOGUE));
    list.push(q);
  }
  return list;
}

const REQUESTS = generate(SEED, COMBOS);
const COUNT = REQUESTS.length;

// ---------------------------------------------------------------------------------------------------
// Targets

interface FuzzResponse extends RawResponse {
  /** Settles once kernel.terminate has run (the profile is stored). */
  terminated?: Promise<unknown>;
}

interface FuzzTarget {
  name: string;
  debug: boolean;
  send(q: Pick<FuzzRequest, 'method' | 'target' | 'headers' | 'body'>): Promise<FuzzResponse>;
  close(): Promise<void>;
}

/**
 * In-process through `app.handle`, with a hand-made source, as conformance/targets.ts's
 * `inProcessTarget` does, but for any app (the examples) and for byte bodies. Header values reach the
 * kernel as the byte strings Node hands over.
 */
function handleTarget(name: string, app: App, debug: boolean): FuzzTarget {
  return {
    name,
    debug,
    async send(q) {
      const body = q.body === undefined ? null : typeof q.body === 'string' ? new TextEncoder().encode(q.body) : q.body;
      const { response, terminate } = await app.handle(handMadeSource(q.method, q.target, q.headers, body));
      return { ...(await asClientSees(q.method, response)), terminated: terminate?.() ?? undefined };
    },
    async close() {},
  };
}

/**
 * Through `app.fetch`, as a Fetch host (Deno, Bun, workers) calls it, the raw target passed beside the
 * Request. What Fetch itself refuses to build (a method that is no token, a header value outside Latin-1,
 * a GET with a body) counts as the 400 a host answers before the app sees it.
 */
function fetchTarget(name: string, app: App, debug: boolean): FuzzTarget {
  return {
    name,
    debug,
    async send(q) {
      let request: Request;
      try {
        const headers = new Headers();
        for (const [k, v] of Object.entries(q.headers)) if (v !== null && k !== 'host') headers.set(k, v);
        const host = q.headers.host === undefined ? '127.0.0.1:8000' : q.headers.host;
        if (host !== null) headers.set('host', host);
        const method = q.method;
        request = new Request(`http://127.0.0.1:8000${q.target.startsWith('/') ? q.target : '/' + q.target}`, { method, headers, body: q.body as BodyInit | undefined });
      } catch {
        return { status: 400, headers: {}, body: '' };
      }
      const response = await app.fetch(request, { remoteAddress: '127.0.0.1', rawTarget: q.target });
      const out: Record<string, string> = {};
      response.headers.forEach((v, k) => (out[k] = k in out ? `${out[k]}\n${v}` : v));
      const text = request.method === 'HEAD' ? '' : (response.headers.get('content-type') ?? '').startsWith('text/event-stream') ? (await response.body?.cancel(), '') : await response.text();
      return { status: response.status, headers: out, body: text };
    },
    async close() {},
  };
}

/** A request with Connection: close on a fresh socket; for byte bodies, which raw-http.ts's string bodies cannot carry. */
function rawBytes(port: number, q: Pick<FuzzRequest, 'method' | 'target' | 'headers'> & { body: Uint8Array }): Promise<RawResponse> {
  const headers: Record<string, string | null> = { host: `127.0.0.1:${port}`, connection: 'close', ...q.headers, 'content-length': String(q.body.byteLength) };
  let head = `${q.method} ${q.target} HTTP/1.1\r\n`;
  for (const [k, v] of Object.entries(headers)) if (v !== null) head += `${k}: ${v}\r\n`;
  const payload = Buffer.concat([Buffer.from(head + '\r\n', 'latin1'), q.body]);
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(payload));
    socket.setTimeout(10_000, () => socket.destroy(new Error('rawBytes: no complete response within 10 s')));
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (e) => (chunks.length ? undefined : reject(e)));
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks), q.method.toUpperCase() === 'HEAD'));
      } catch (e) {
        reject(e);
      }
    });
  });
}

/** The Node bundle over raw sockets (raw-http.ts through processTarget); byte-level targets and headers as written. */
function bundleTarget(target: Target): FuzzTarget {
  const port = Number(new URL(target.origin).port);
  return {
    name: target.name,
    debug: true,
    async send(q) {
      // The socket carries bytes: a target with non-ASCII characters goes as its UTF-8 bytes.
      const wire = { ...q, target: /[^\x00-\xff]/.test(q.target) ? bytes(q.target) : q.target };
      if (wire.body instanceof Uint8Array) return rawBytes(port, { ...wire, body: wire.body });
      return target.send({ method: wire.method, target: wire.target, headers: wire.headers, body: wire.body as string | undefined });
    },
    close: () => target.close(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Invariants

const clip = (s: string, n = 200) => (s.length > n ? `${JSON.stringify(s.slice(0, n))}… (${s.length} chars)` : JSON.stringify(s));

function describeRequest(q: FuzzRequest, index: number): string {
  const body = q.body === undefined ? '(none)' : typeof q.body === 'string' ? clip(q.body) : `bytes ${Buffer.from(q.body.slice(0, 100)).toString('hex')} (${q.body.byteLength} bytes)`;
  const headers = Object.entries(q.headers).map(([k, v]) => `\n    ${k}: ${v === null ? '(omitted)' : clip(v)}`).join('');
  return `seed 0x${SEED.toString(16)}, request #${index} [${q.mutations.join(' + ')}]\n  ${clip(q.method, 60)} ${clip(q.target)}\n  headers:${headers || ' (none)'}\n  body: ${body}`;
}

/** A field value as RFC 9110 allows it, and as Node's setHeader / Fetch Headers accept it: no CR, LF, NUL, nothing above 0xFF. */
const VALID_HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9a-z]+$/;

/** What is wrong with one response, or [] when nothing is. */
function problems(res: RawResponse): string[] {
  const found: string[] = [];
  if (!(res.status >= 100 && res.status < 500)) found.push(`status ${res.status}`);
  for (const [name, joined] of Object.entries(res.headers)) {
    if (!HEADER_NAME.test(name)) found.push(`invalid header name ${clip(name)}`);
    for (const value of joined.split('\n')) {
      if (!VALID_HEADER_VALUE.test(value)) found.push(`invalid value of ${name}: ${clip(value)}`);
      if (value.includes(MARKER) || UNESCAPED.test(value)) found.push(`marker in header ${name}: ${clip(value)}`);
    }
  }
  const type = res.headers['content-type'] ?? '';
  if (/^text\/html/i.test(type)) {
    const at = res.body.search(UNESCAPED);
    if (at >= 0) found.push(`marker unescaped in the HTML body: …${clip(res.body.slice(Math.max(0, at - 120), at + 60), 200)}`);
  }
  // No redirect off-site: a Location whose path starts with `//` or `/\` (in any spelling) is read as another host (CONTRACT §4.2).
  const location = res.headers.location;
  if (location !== undefined) {
    const path = location.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/\\?#]*/i, '');
    if (/^(\/|%2f)(\/|\\|%2f|%5c)/i.test(path) || /^(\\|%5c)/i.test(path)) found.push(`off-site Location ${clip(location)}`);
  }
  if (res.status >= 500) found.push(`body: ${clip(res.body, 600)}`);
  return found;
}

// ---------------------------------------------------------------------------------------------------
// The run

/** The profiler's page (or toolbar) for a token it does not have. */
const isMissing = (page: RawResponse) => page.status === 404 || page.body.includes('<h2>Token not found</h2>');

const recorded: string[] = [];
const onRejection = (reason: unknown) => void recorded.push(`unhandledRejection: ${reason instanceof Error ? reason.stack : String(reason)}`);
const onException = (error: Error) => void recorded.push(`uncaughtException: ${error.stack}`);

before(() => {
  process.on('unhandledRejection', onRejection);
  process.on('uncaughtException', onException);
});
after(() => {
  process.off('unhandledRejection', onRejection);
  process.off('uncaughtException', onException);
});

/** The ways a profile is looked at, one per profile in turn: every panel, the toolbar, the exception and router pages, the JSON form. */
const PROFILE_VIEWS: { path: (token: string) => string; headers: Record<string, string> }[] = [
  ...PANELS.map((panel) => ({ path: (token: string) => `/_profiler/${token}?panel=${panel}`, headers: {} })),
  { path: (token) => `/_wdt/${token}`, headers: {} },
  { path: (token) => `/_profiler/${token}/exception`, headers: {} },
  { path: (token) => `/_profiler/${token}/router`, headers: {} },
  { path: (token) => `/_profiler/${token}`, headers: { accept: 'application/json' } },
];

/** Profiles checked per batch: well below the memory store's 1000, so none is evicted before it is read. */
const PROFILE_BATCH = 50;

/** Sends the whole list, checks every answer (and, in debug mode, its profile), then that `GET /` answers as before. */
async function run(target: FuzzTarget): Promise<void> {
  const failures: string[] = [];
  const home = { method: 'GET', target: '/', headers: {} };
  const before = await target.send(home);
  assert.ok(before.status < 500, `${target.name}: GET / → ${before.status} before the fuzz`);
  let pending: { index: number; token: string; terminated?: Promise<unknown> }[] = [];
  let checked = 0;

  // Each profile is stored and shows the marker escaped: one panel per request, in turn, or the toolbar.
  const checkProfiles = async () => {
    for (const { index, token, terminated } of pending) {
      await terminated;
      const view = PROFILE_VIEWS[checked++ % PROFILE_VIEWS.length]!;
      const where = view.path(token);
      let page = await target.send({ method: 'GET', target: where, headers: view.headers });
      // Over a socket, kernel.terminate (which stores the profile) runs once the response is written:
      // a few more round trips give it the time it needs. In-process, `terminated` has settled already.
      for (let retry = 0; retry < 5 && isMissing(page) && !terminated; retry++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        page = await target.send({ method: 'GET', target: where, headers: view.headers });
      }
      const found = problems(page);
      if (page.status !== 200) found.unshift(`${where} answered ${page.status}, not 200`);
      else if (isMissing(page)) found.unshift(`${where}: the profile was not stored`);
      if (found.length > 0) failures.push(`${describeRequest(REQUESTS[index]!, index)}\n  → its profile: ${found.join('; ')}`);
    }
    pending = [];
  };

  for (const [index, q] of REQUESTS.entries()) {
    let res: FuzzResponse;
    try {
      res = await target.send(q);
    } catch (error) {
      failures.push(`${describeRequest(q, index)}\n  → threw ${error instanceof Error ? error.stack : String(error)}`);
      continue;
    }
    const found = problems(res);
    if (found.length > 0) failures.push(`${describeRequest(q, index)}\n  → ${res.status}: ${found.join('; ')}`);
    const token = res.headers['x-debug-token'];
    if (token !== undefined) {
      if (!target.debug) failures.push(`${describeRequest(q, index)}\n  → X-Debug-Token in production`);
      else pending.push({ index, token, terminated: res.terminated });
    }
    if (pending.length >= PROFILE_BATCH) await checkProfiles();
  }
  await checkProfiles();
  if (target.debug) {
    assert.ok(checked > REQUESTS.length / 2, `${target.name}: only ${checked} profiles checked`);
    // The pages that list what the fuzz left in the store: its URLs, methods, IPs, statuses.
    for (const where of ['/_profiler/empty/search/results?limit=100', '/_profiler/latest', '/_profiler/search', '/_profiler/latest/exception']) {
      const page = await target.send({ method: 'GET', target: where, headers: {} });
      const found = problems(page);
      if (page.status !== 200) found.unshift(`answered ${page.status}, not 200`);
      if (found.length > 0) failures.push(`GET ${where} after the fuzz → ${found.join('; ')}`);
    }
  }

  const afterwards = await target.send(home);
  assert.equal(afterwards.status, before.status, `${target.name}: GET / answered ${before.status} before the fuzz, ${afterwards.status} after`);
  assert.equal(afterwards.headers['content-type'], before.headers['content-type']);
  assert.deepEqual(recorded, [], `${target.name}: ${recorded.join('\n')}`);
  assert.equal(failures.length, 0, `${target.name}: ${failures.length} of ${REQUESTS.length} requests broke an invariant:\n\n${failures.slice(0, 12).join('\n\n')}`);
}

/** createApp's logging options, the lines kept: what the profiler or kernel.terminate could not do is logged, not answered. */
function logged(): { options: Pick<AppOptions, 'logSink' | 'logLevel'>; lines: string[] } {
  const lines: string[] = [];
  return { options: { logSink: (line) => void lines.push(line), logLevel: 'error' }, lines };
}

/** A log line that says something broke: a profiler failure, anything CRITICAL or above (a 500, an exception in kernel.terminate). */
const BROKEN = /\] (profiler\.[A-Z]+|[a-z_]+\.(CRITICAL|ALERT|EMERGENCY)):/;

test(`the list: ${COUNT} requests from seed 0x${SEED.toString(16)}, every catalogue entry at least once`, () => {
  for (const [name] of CATALOGUE) assert.ok(REQUESTS.some((q) => q.mutations.includes(name)), name);
  // Same seed, same list.
  assert.deepEqual(generate(SEED, COMBOS), REQUESTS);
});

test('the invariants catch what they are meant to catch: a 500, the marker raw in HTML or in a header, an off-site redirect', async () => {
  const { options, lines } = logged();
  const app = createApp({
    env: 'prod',
    ...options,
    environment: {},
    routes: [
      { name: 'echo', path: '/echo', controller: (request) => HttpResponse.html(`<p>${String(request.query.get('q'))}</p>`) },
      { name: 'header', path: '/header', controller: (request) => new HttpResponse('', 200, { 'x-echo': encodeURIComponent(String(request.query.get('q'))).replace(/%3C/g, '<') }) },
      { name: 'boom', path: '/boom', controller: () => { throw new Error('boom'); } },
      { name: 'away', path: '/away', controller: () => HttpResponse.redirect('/%5Cevil.com/') },
    ],
  });
  const target = handleTarget('deliberately broken', app, false);
  for (const [path, expected] of [['/echo', /marker unescaped in the HTML body/], ['/header', /marker in header x-echo/], ['/boom', /status 500/], ['/away', /off-site Location/]] as const) {
    const found = problems(await target.send({ method: 'GET', target: `${path}?q=${MARKER_PCT}`, headers: {} }));
    assert.match(found.join('; '), expected, path);
  }
  assert.ok(lines.some((line) => BROKEN.test(line)), 'the 500 is a CRITICAL log line');
});

const profileDir = mkdtempSync(join(tmpdir(), 'irms-fuzz-profiles-'));
after(() => rmSync(profileDir, { recursive: true, force: true }));

/** The apps a user has, in-process: [title, app factory given the logging options, debug]. */
const APPS: [string, (log: Pick<AppOptions, 'logSink' | 'logLevel'>) => App, boolean][] = [
  ['default app, dev (debug)', (log) => createApp({ env: 'dev', ...log, environment: {} }), true],
  ['default app, prod', (log) => createApp({ env: 'prod', ...log, environment: {} }), false],
  // Forwarded headers are read only from a trusted proxy; the in-process peer is 127.0.0.1.
  ['default app, dev, behind a trusted proxy', (log) => createApp({ env: 'dev', ...log, trustedProxies: ['127.0.0.1'], environment: {} }), true],
  // The file store writes and reads back every hostile profile (its own serializer, index and bounds).
  ['default app, dev, file profiler store', (log) => createApp({ env: 'dev', ...log, profilerDsn: `file:${profileDir}?max=200`, environment: {} }), true],
  ['guestbook, debug', (log) => createGuestbookApp({ debug: true, ...log, environment: {} }), true],
  ['guestbook, prod', (log) => createGuestbookApp({ debug: false, ...log, environment: {} }), false],
  ['shop, debug', (log) => createShopApp({ debug: true, ...log, environment: {} }), true],
  ['shop, prod', (log) => createShopApp({ debug: false, ...log, environment: {} }), false],
  ['notes API, debug', (log) => createNotesApp({ debug: true, ...log, environment: {} }), true],
  ['notes API, prod', (log) => createNotesApp({ debug: false, ...log, environment: {} }), false],
];

test('in-process through app.fetch, default app, dev (debug): no 5xx, no crash, nothing echoed raw', async () => {
  const { options, lines } = logged();
  await run(fetchTarget('app.fetch, default app, dev', createApp({ env: 'dev', ...options, environment: {} }), true));
  assert.deepEqual(lines.filter((line) => BROKEN.test(line)), [], 'the log says something broke');
});

for (const [title, make, debug] of APPS) {
  test(`in-process, ${title}: no 5xx, no crash, nothing echoed raw`, async () => {
    const { options, lines } = logged();
    await run(handleTarget(title, make(options), debug));
    assert.deepEqual(lines.filter((line) => BROKEN.test(line)), [], `${title}: the log says something broke`);
  });
}

test('node dist/server.js over raw sockets (debug): no 5xx, no crash, nothing echoed raw', async () => {
  assert.ok(existsSync('dist/server.js'), 'dist/server.js is built (node build.mjs --no-types)');
  const target = bundleTarget(await processTarget('node bundle', process.execPath, ['dist/server.js']));
  try {
    await run(target);
  } finally {
    await target.close();
  }
});

test('no unhandled rejection and no uncaught exception during the whole file, late ones included', async () => {
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(recorded, []);
});
