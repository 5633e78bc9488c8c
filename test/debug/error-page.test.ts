import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createApp, HttpResponse, listener, type AppOptions, type KernelRequest, type RouteDefinition } from '../../src/index.ts';
import { rawUrlEncode, renderError } from '../../src/debug/error-renderer.ts';
import { HttpException, NotFoundHttpException } from '../../src/kernel/exceptions.ts';
import { errorPageRequest } from '../support/request.ts';

const ORIGIN = 'http://127.0.0.1:8000';
const ROOT = process.cwd();

function makeApp(env: 'dev' | 'prod', options: AppOptions = {}) {
  const logs: string[] = [];
  const app = createApp({ env, logSink: (l) => logs.push(l), environment: {}, ...options });
  return {
    logs,
    async get(path: string, headers: Record<string, string> = {}) {
      const response = await app.fetch(new Request(ORIGIN + path, { headers }));
      return { response, status: response.status, headers: response.headers, body: await response.text() };
    },
  };
}

const escaped = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const decode = (h: string | null) => decodeURIComponent(h ?? '');
/** Only rawurlencode's output alphabet. */
const HEADER_SAFE = /^[A-Za-z0-9%\-_.~:]*$/;

/** The 1-based line of `needle` in a source file. */
function lineOf(file: string, needle: string): number {
  const index = readFileSync(join(ROOT, file), 'utf8').split('\n').findIndex((l) => l.includes(needle));
  assert.ok(index >= 0, `${needle} not found in ${file}`);
  return index + 1;
}

const THROWS: RouteDefinition[] = [
  {
    name: 'explode',
    path: '/explode',
    controller: function explodeController() {
      throw new TypeError('The widget exploded'); // explode-line
    },
  },
  { name: 'string', path: '/throw/string', controller: () => { throw 'plain string thrown'; } },
  { name: 'number', path: '/throw/number', controller: () => { throw 42; } },
  { name: 'object', path: '/throw/object', controller: () => { throw { code: 'E_WIDGET', detail: '<b>x</b>', nested: { depth: 2 } }; } },
  { name: 'ok', path: '/ok', controller: () => new HttpResponse('fine') },
  {
    name: 'echo',
    path: '/echo',
    controller: (request: KernelRequest) => {
      throw new Error(`Bad q: ${request.query.getString('q')}`);
    },
  },
];

describe('debug HTML page', () => {
  test('GET /robots.txt: title, comments, hierarchy, HTTP line, message and tabs', async () => {
    const { status, headers, body } = await makeApp('dev').get('/robots.txt');
    const message = `No route found for "GET ${ORIGIN}/robots.txt"`;
    const headline = `${escaped(message)} (404 Not Found)`;
    assert.equal(status, 404);
    assert.ok(body.startsWith(`<!-- ${headline} -->\n<!DOCTYPE html>`));
    assert.ok(body.trimEnd().endsWith(`<!-- ${headline} -->`));
    assert.ok(body.includes(`<title>${headline}</title>`));
    assert.match(body, /<h2 class="exception-hierarchy">.*ResourceNotFoundException.*&#8250;.*NotFoundHttpException.*<\/h2>/);
    assert.ok(body.indexOf('ResourceNotFoundException') < body.indexOf('NotFoundHttpException</abbr>'), 'deepest cause first');
    assert.match(body, /<h2 class="exception-http">HTTP 404 <small>Not Found<\/small><\/h2>/);
    assert.ok(body.includes(`<h1 class="exception-message">${escaped(message)}</h1>`));
    assert.match(body, /data-tab="tab-exceptions"[^>]*>Exceptions <span class="badge">2<\/span>/);
    assert.match(body, /data-tab="tab-logs"[^>]*>Logs <span class="badge status-error">1<\/span>/);
    assert.match(body, /data-tab="tab-traces"[^>]*>Stack Traces <span class="badge">2<\/span>/);
    assert.ok(body.includes('id="trace-box-1"') && body.includes('id="trace-box-2"'));
    assert.ok(body.includes(`<span class="trace-message">${escaped('No routes found for "/robots.txt/".')}</span>`), 'previous message shown');
    assert.ok(body.includes('[2/2] NotFoundHttpException') && body.includes('[1/2] ResourceNotFoundException'));
    assert.equal(headers.get('content-type'), 'text/html; charset=UTF-8');
    assert.equal(headers.get('x-content-type-options'), 'nosniff');
    assert.equal(decode(headers.get('x-debug-exception')), message);
  });

  test('everything is inline: no external stylesheet, script, font or image', async () => {
    const { body } = await makeApp('dev').get('/robots.txt');
    assert.doesNotMatch(body, /<script[^>]+src=/i);
    assert.doesNotMatch(body, /<link[^>]+rel="stylesheet"/i);
    assert.doesNotMatch(body, /url\(/i);
    assert.doesNotMatch(body, /(src|href)="(https?:)?\/\//i);
    assert.equal(body.split('</body>').length, 2, 'exactly one </body> for the toolbar to find');
  });

  test('the Logs tab lists every record of the request: level, channel, filled message, context', async () => {
    const app = makeApp('dev', {
      listeners: [
        {
          hook: 'kernel.request',
          placement: { index: 0 },
          listener: listener<'kernel.request'>('Test::log', 'test', (event) => {
            event.request.logger.info('app', 'User {user} opened {page}', { user: 'ada', page: '/robots.txt', extra: { n: 1 } });
            event.request.logger.warning('security', 'Nothing to see');
          }),
        },
      ],
    });
    const { body } = await app.get('/robots.txt');
    assert.ok(body.includes('User ada opened /robots.txt'));
    assert.match(body, /<span class="level level-info">INFO<\/span>.*?<td>app<\/td>/s);
    assert.match(body, /<span class="level level-warning">WARNING<\/span>.*?<td>security<\/td>/s);
    assert.ok(body.includes(escaped('"extra": {')), 'context as pretty JSON');
    assert.ok(body.includes(`Uncaught Exception NotFoundHttpException: ${escaped(`"No route found for "GET ${ORIGIN}/robots.txt""`)} at ${join(ROOT, 'src/listeners/router-listener.ts')} line`));
    // Badge = records at ERROR and above (one), not the total (three).
    assert.match(body, /Logs <span class="badge status-error">1<\/span>/);
  });

  test('"No log messages" and no badge when the request logged nothing', () => {
    const response = renderError(new NotFoundHttpException('Nothing here'), errorPageRequest(), true);
    const body = response.bodyText() ?? '';
    assert.ok(body.includes('No log messages'));
    assert.match(body, /data-tab="tab-logs"[^>]*>Logs<\/a>/);
    assert.match(body, />Exception<\/a>/, 'no badge for a single exception');
    assert.ok(!body.includes('<h3>[1/1]'), 'no [i/N] label for a single exception');
  });

  test('frames point at src/*.ts lines, with a code excerpt', async () => {
    const { headers, body } = await makeApp('dev').get('/robots.txt');
    const line = lineOf('src/listeners/router-listener.ts', 'new NotFoundHttpException(message, previous)');
    assert.equal(decode(headers.get('x-debug-exception-file')), `${join(ROOT, 'src/listeners/router-listener.ts')}:${line}`);
    assert.ok(body.includes(`at <code>src/listeners/router-listener.ts:${line}</code>`));
    assert.match(body, new RegExp(`<span class="line current"><span class="ln">${line}</span>.*NotFoundHttpException`));
    assert.doesNotMatch(body, /dist\/\w+\.js/, 'no bundle paths');
    // Vendor frames are grouped and collapsed.
    assert.match(body, /<details class="vendor-group"><summary>\d+ vendor frames?/);
  });

  test('a controller error: 500, its class, its line in the test file, CRITICAL log with the source file', async () => {
    const app = makeApp('dev', { routes: THROWS });
    const { status, headers, body } = await app.get('/explode');
    const line = lineOf('test/debug/error-page.test.ts', '// explode-line');
    assert.equal(status, 500);
    assert.match(body, /<h2 class="exception-http">HTTP 500 <small>Internal Server Error<\/small><\/h2>/);
    assert.ok(body.includes('<h3 class="trace-class">TypeError'));
    assert.ok(body.includes(`at <code>test/debug/error-page.test.ts:${line}</code>`));
    assert.equal(decode(headers.get('x-debug-exception-file')), `${join(ROOT, 'test/debug/error-page.test.ts')}:${line}`);
    assert.ok(app.logs.some((l) => l.includes(`request.CRITICAL: Uncaught Exception TypeError: "The widget exploded" at ${join(ROOT, 'test/debug/error-page.test.ts')} line ${line}`)));
    assert.match(body, /Route<\/span> <code>explode<\/code>/);
  });

  test('the 405 page carries the Allow header', async () => {
    const app = createApp({ env: 'dev', logSink: () => {}, environment: {} });
    const r = await app.fetch(new Request(`${ORIGIN}/_profiler/abc123`, { method: 'POST' }));
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'GET');
    assert.ok((await r.text()).includes('MethodNotAllowedHttpException'));
  });
});

describe('thrown non-Errors', () => {
  test('a controller that throws a string: 500 NonErrorThrown, value kept', async () => {
    const { status, headers, body } = await makeApp('dev', { routes: THROWS }).get('/throw/string');
    assert.equal(status, 500);
    assert.ok(body.includes('<h3 class="trace-class">NonErrorThrown'));
    assert.ok(body.includes('<h1 class="exception-message">plain string thrown</h1>'));
    assert.ok(body.includes('A <strong>string</strong> was thrown instead of an Error'));
    assert.ok(body.includes('<pre class="json">&quot;plain string thrown&quot;</pre>'));
    assert.equal(decode(headers.get('x-debug-exception')), 'plain string thrown');
  });

  test('a number and an object are kept too (escaped)', async () => {
    const app = makeApp('dev', { routes: THROWS });
    const n = await app.get('/throw/number');
    assert.equal(n.status, 500);
    assert.ok(n.body.includes('A <strong>number</strong> was thrown'));
    assert.ok(n.body.includes('<pre class="json">42</pre>'));
    const o = await app.get('/throw/object');
    assert.equal(o.status, 500);
    assert.ok(o.body.includes('A <strong>object</strong> was thrown'));
    assert.ok(o.body.includes('&quot;code&quot;: &quot;E_WIDGET&quot;'));
    assert.ok(o.body.includes('&lt;b&gt;x&lt;/b&gt;') && !o.body.includes('<b>x</b>'));
  });
});

describe('production page', () => {
  const secrets = ['The widget exploded', 'TypeError', 'NotFoundHttpException', 'ResourceNotFoundException', 'robots.txt', 'src/', '.ts', 'node_modules', ' at '];

  for (const [path, status, text] of [
    ['/robots.txt', 404, 'Not Found'],
    ['/explode', 500, 'Internal Server Error'],
    ['/throw/string', 500, 'Internal Server Error'],
  ] as const) {
    test(`${path}: "Oops! An Error Occurred" and nothing else`, async () => {
      const { status: got, headers, body } = await makeApp('prod', { routes: THROWS }).get(path);
      assert.equal(got, status);
      assert.ok(body.includes('<h1>Oops! An Error Occurred</h1>'));
      assert.ok(body.includes(`<h2>The server returned a "${status} ${text}".</h2>`));
      for (const s of [...secrets, 'plain string thrown']) assert.ok(!body.includes(s), `leaks ${s}`);
      for (const name of headers.keys()) assert.ok(!name.startsWith('x-debug'), `header ${name}`);
      assert.equal(headers.get('content-type'), 'text/html; charset=UTF-8');
      assert.equal(headers.get('x-content-type-options'), 'nosniff');
    });
  }

  test('prod 405 keeps the Allow header', async () => {
    const app = makeApp('prod', { routes: [{ name: 'only', path: '/only', methods: ['PUT'], controller: () => new HttpResponse('') }] });
    const r = await app.get('/only');
    assert.equal(r.status, 405);
    assert.equal(r.headers.get('allow'), 'PUT');
    assert.ok(!r.body.includes('/only'));
  });
});

describe('problem+json', () => {
  test('debug: type, title, status, detail, class and a source-mapped trace', async () => {
    const { status, headers, body } = await makeApp('dev').get('/robots.txt', { accept: 'application/json' });
    assert.equal(status, 404);
    assert.equal(headers.get('content-type'), 'application/problem+json');
    assert.equal(headers.get('vary'), 'Accept');
    const p = JSON.parse(body);
    assert.equal(p.type, 'https://tools.ietf.org/html/rfc2616#section-10');
    assert.equal(p.title, 'Not Found');
    assert.equal(p.status, 404);
    assert.equal(p.detail, `No route found for "GET ${ORIGIN}/robots.txt"`);
    assert.equal(p.class, 'NotFoundHttpException');
    assert.ok(Array.isArray(p.trace) && p.trace.length > 0);
    assert.equal(p.trace[0].file, join(ROOT, 'src/listeners/router-listener.ts'));
    assert.equal(p.trace[0].line, lineOf('src/listeners/router-listener.ts', 'new NotFoundHttpException(message, previous)'));
  });

  test('non-debug: detail is the status text (4xx and 5xx), no class, no trace, no debug headers', async () => {
    const app = makeApp('prod', { routes: THROWS });
    for (const [path, status, text] of [
      ['/robots.txt', 404, 'Not Found'],
      ['/explode', 500, 'Internal Server Error'],
    ] as const) {
      const { headers, body } = await app.get(path, { accept: 'application/problem+json' });
      assert.deepEqual(JSON.parse(body), { type: 'https://tools.ietf.org/html/rfc2616#section-10', title: text, status, detail: text });
      assert.equal(headers.get('content-type'), 'application/problem+json');
      assert.equal(headers.get('vary'), 'Accept');
      assert.equal(headers.get('x-debug-exception'), null);
    }
  });

  test('HTML wins when the client prefers it', async () => {
    const { headers } = await makeApp('dev').get('/robots.txt', { accept: 'text/html,application/json;q=0.9' });
    assert.equal(headers.get('content-type'), 'text/html; charset=UTF-8');
  });
});

describe('welcome page', () => {
  test('debug: / without a route is a 404 welcome page linking the profiler and the routes', async () => {
    const { status, headers, body } = await makeApp('dev').get('/');
    assert.equal(status, 404);
    assert.ok(body.includes('<title>Welcome to irms-web!</title>'));
    assert.ok(body.includes("haven't configured any homepage URL"));
    assert.ok(body.includes('href="/_profiler/"'));
    assert.ok(body.includes('href="/_profiler/latest?panel=routing"'));
    assert.equal(headers.get('x-debug-exception'), null);
    assert.match(headers.get('content-type') ?? '', /^text\/html; charset=UTF-8$/);
    assert.equal(headers.get('x-content-type-options'), 'nosniff', 'as on the error pages');
  });

  test('non-debug: the ordinary 404 page', async () => {
    const { status, body } = await makeApp('prod').get('/');
    assert.equal(status, 404);
    assert.ok(body.includes('Oops! An Error Occurred'));
    assert.ok(!body.includes('Welcome'));
  });

  test('a route for / wins', async () => {
    const { status, body } = await makeApp('dev', { routes: [{ name: 'home', path: '/', controller: () => new HttpResponse('home') }] }).get('/');
    assert.equal(status, 200);
    assert.equal(body, 'home');
  });
});

describe('Content-Security-Policy removal', () => {
  const withCsp = (env: 'dev' | 'prod') =>
    makeApp(env, {
      routes: THROWS,
      listeners: [
        {
          hook: 'kernel.response',
          placement: { index: 0 },
          listener: listener<'kernel.response'>('Test::csp', 'test csp', (event) => event.response.headers.set('content-security-policy', "default-src 'self'")),
        },
      ],
    });

  test('debug: removed from error pages only', async () => {
    const app = withCsp('dev');
    assert.equal((await app.get('/robots.txt')).headers.get('content-security-policy'), null);
    assert.equal((await app.get('/explode')).headers.get('content-security-policy'), null);
    assert.equal((await app.get('/ok')).headers.get('content-security-policy'), "default-src 'self'");
  });

  test('non-debug: left alone', async () => {
    assert.equal((await withCsp('prod').get('/robots.txt')).headers.get('content-security-policy'), "default-src 'self'");
  });
});

describe('X-Debug-* headers are always header-safe', () => {
  test('rawUrlEncode: rawurlencode alphabet; emoji, lone surrogates, CR/LF', () => {
    assert.equal(rawUrlEncode('a b"/:!\'()*~._-'), 'a%20b%22%2F%3A%21%27%28%29%2A~._-');
    assert.equal(rawUrlEncode('😀'), '%F0%9F%98%80');
    assert.equal(rawUrlEncode('\r\n'), '%0D%0A');
    assert.equal(rawUrlEncode('x\uD800y\uDC00'), 'x%EF%BF%BDy%EF%BF%BD');
    assert.equal(rawUrlEncode('\u2028\u202E\0'), '%E2%80%A8%E2%80%AE%00');
  });

  test('any message survives: emoji, U+2028, lone surrogate, CR/LF, NUL, 10 000 characters', async () => {
    const nasty = 'bad 😀 \u2028 \uD800 \r\nSet-Cookie: x=1 \0 ' + 'y'.repeat(10_000);
    const app = makeApp('dev', { routes: [{ name: 'n', path: '/nasty', controller: () => { throw new Error(nasty); } }] });
    const { status, headers, body } = await app.get('/nasty');
    assert.equal(status, 500);
    const h = headers.get('x-debug-exception') ?? '';
    assert.match(h, HEADER_SAFE);
    // 2000 UTF-8 bytes, as Symfony's substr: the emoji, U+2028 and the lone surrogate (U+FFFD) take 6 more than their 4 units.
    assert.equal(decode(h), nasty.slice(0, 1994).replace('\uD800', '\uFFFD'));
    assert.match(headers.get('x-debug-exception-file') ?? '', HEADER_SAFE);
    assert.equal(headers.get('set-cookie'), null);
    assert.ok(body.includes('bad &#x1F600; &#x2028; &#xD800; '), 'characters beyond U+00FF as references; a lone surrogate shows as U+FFFD, as its UTF-8 would');
  });
});

describe('X-Debug-Exception is cut as Symfony cuts it', () => {
  test('regression: X-Debug-Exception kept 2000 characters, not Symfony\'s 2000 bytes: a CJK message or a Latin-1 Referer made it 18 KB, past what Node\'s and undici\'s parsers accept', async () => {
    const cjk = '中'.repeat(3000);
    const app = makeApp('dev', { routes: [{ name: 'cjk', path: '/cjk', controller: () => { throw new Error(cjk); } }] });
    const own = (await app.get('/cjk')).headers.get('x-debug-exception') ?? '';
    assert.match(own, HEADER_SAFE);
    assert.equal(decode(own), '中'.repeat(666), '666 whole characters: 1998 bytes, and no character cut in two');
    assert.equal(own.length, 666 * 9);

    const referer = 'é'.repeat(3000);
    const notFound = (await app.get('/nope', { referer })).headers.get('x-debug-exception') ?? '';
    const message = decode(notFound);
    assert.ok(new TextEncoder().encode(message).length <= 2000, `${new TextEncoder().encode(message).length} bytes`);
    assert.ok(message.startsWith(`No route found for "GET ${ORIGIN}/nope" (from "ééé`), message.slice(0, 80));
    assert.ok(notFound.length <= 6000, `${notFound.length} characters`);
  });

  test('an emoji at the 2000-byte boundary is left out whole, never split into an undecodable escape', async () => {
    const message = 'a'.repeat(1998) + '😀';
    const app = makeApp('dev', { routes: [{ name: 'edge', path: '/edge', controller: () => { throw new Error(message); } }] });
    const h = (await app.get('/edge')).headers.get('x-debug-exception') ?? '';
    assert.equal(decode(h), 'a'.repeat(1998));
  });
});

describe('an error whose name is no string', () => {
  test('regression: an error whose name is a Symbol (or an object whose toString throws) went unlogged and got a bare text 500 instead of its error page', async () => {
    const symbolName = new Error('named by a symbol');
    (symbolName as unknown as { name: unknown }).name = Symbol('weird');
    const objectName = new TypeError('named by an object');
    (objectName as unknown as { name: unknown }).name = { toString() { throw new Error('no name'); } };
    const app = makeApp('dev', {
      routes: [
        { name: 'sym', path: '/sym', controller: () => { throw symbolName; } },
        { name: 'obj', path: '/obj', controller: () => { throw objectName; } },
      ],
    });
    for (const [path, message, cls] of [['/sym', 'named by a symbol', 'Error'], ['/obj', 'named by an object', 'TypeError']] as const) {
      const { status, headers, body } = await app.get(path);
      assert.equal(status, 500);
      assert.equal(headers.get('content-type'), 'text/html; charset=UTF-8', path);
      assert.ok(body.includes(`<!-- ${message} (500 Internal Server Error) -->`), path);
      assert.equal(decode(headers.get('x-debug-exception')), message);
      assert.ok(app.logs.some((l) => l.includes(`request.CRITICAL: Uncaught Exception ${cls}: "${message}"`)), `${path}: ${app.logs.filter((l) => l.includes('CRITICAL')).join('\n')}`);
      assert.ok(!app.logs.some((l) => l.includes('Exception thrown when handling an exception')), path);
      assert.ok(!app.logs.some((l) => l.includes('[unreadable')), `${path}: the context's exception is written too`);
    }
  });
});

describe('characters beyond ASCII on the debug page', () => {
  const wide: RouteDefinition = {
    name: 'wide',
    path: '/wide',
    controller: function wideController() {
      // A comment next to the throw with a dash — and an ellipsis… (they are in the page's code excerpt)
      throw new Error('Ünïcode “quoted” message — 😀'); // wide-line
    },
  };

  // Since 9cb2799 an ellipsis in a comment of router-listener.ts, shown in every 404's code excerpt, had
  // made the debug 404 page two bytes per character: 3.0k → 2.4k req/s over HTTP (bench/HISTORY.md, 01:12).
  test('regression: one character beyond U+00FF in a source excerpt made the whole debug page two bytes per character; it is now written as a reference', async () => {
    const { status, body } = await makeApp('dev', { routes: [wide] }).get('/wide');
    assert.equal(status, 500);
    assert.match(body, /^[\x00-\xff]*$/, 'no character beyond U+00FF in the page');
    assert.ok(body.includes('dash &#x2014; and an ellipsis&#x2026;'), 'the excerpt shows the comment, escaped');
    assert.ok(body.includes('// wide-line'), 'the excerpt is the throwing line');
    assert.ok(body.includes('&#xDC;n&#xEF;code &#x201C;quoted&#x201D; message &#x2014; &#x1F600;'), 'the message: every character beyond ASCII as a reference');
  });

  // After a comment with `é` went into router-listener.ts, next to the 404's throw, the debug 404 cost
  // some 60 µs more over HTTP: a one-byte page with a character above U+007F is no longer copied to the
  // socket as it is, it is transcoded to UTF-8 (A/B against the build before, bench/HISTORY.md).
  test('regression: a Latin-1 character (é) in a source excerpt made every debug 404 page non-ASCII, transcoded when sent', async () => {
    const app = makeApp('dev', { routes: [wide] });
    for (const path of ['/wide', '/no-such-page']) {
      const { status, body } = await app.get(path);
      assert.ok(status === 500 || status === 404, path);
      assert.match(body, /^[\x00-\x7f]*$/, `${path}: the page is ASCII`);
    }
    const { body } = await app.get('/no-such-page');
    assert.ok(body.includes('&#xE9;'), 'router-listener.ts\'s excerpt holds an é, written as a reference');
  });
});

describe('XSS: client input and messages are escaped', () => {
  const payloads = ['"><script>alert(1)</script>', "'><img src=x onerror=alert(1)>", '</title><svg onload=alert(1)>', '--><script>alert(2)</script><!--'];
  const raw = ['<script>alert(', '<img src=x', '<svg onload', '</title><svg'];

  function assertClean(body: string, where: string) {
    for (const r of raw) assert.ok(!body.includes(r), `${where}: raw ${r}`);
    // Scripts are the page's own (and the toolbar's): none carries the payload.
    for (const m of body.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)) assert.ok(!m[1].includes('alert('), `${where}: payload in a script`);
    assert.doesNotMatch(body, /<script\b[^>]*\bsrc=/, `${where}: external script`);
  }

  test('path', async () => {
    const app = makeApp('dev');
    for (const p of payloads) {
      const { status, headers, body } = await app.get('/' + encodeURIComponent(p));
      assert.equal(status, 404);
      assertClean(body, p);
      assert.match(headers.get('x-debug-exception') ?? '', HEADER_SAFE);
    }
    // A raw, unencoded path as a Node client can send it.
    const { body } = await app.get('/<script>alert(1)</script>');
    assertClean(body, 'raw path');
  });

  test('query (through an exception message)', async () => {
    const app = makeApp('dev', { routes: THROWS });
    for (const p of payloads) {
      const { status, headers, body } = await app.get('/echo?q=' + encodeURIComponent(p));
      assert.equal(status, 500);
      assertClean(body, p);
      assert.ok(body.includes(escaped(`Bad q: ${p}`).replace(/'/g, '&#x27;')));
      assert.match(headers.get('x-debug-exception') ?? '', HEADER_SAFE);
      assert.equal(decode(headers.get('x-debug-exception')), `Bad q: ${p}`);
    }
  });

  test('Referer', async () => {
    const app = makeApp('dev');
    for (const p of payloads) {
      const { headers, body } = await app.get('/robots.txt', { referer: p });
      assertClean(body, p);
      assert.equal(decode(headers.get('x-debug-exception')), `No route found for "GET ${ORIGIN}/robots.txt" (from "${p}")`);
    }
  });

  test('Host', async () => {
    const app = createApp({ env: 'dev', logSink: () => {}, environment: {} });
    const handled = await app.handle({
      method: 'GET',
      target: '/',
      scheme: 'http',
      fallbackHost: '',
      remoteAddress: '127.0.0.1',
      protocol: 'HTTP/1.1',
      header: (n) => (n === 'host' ? '"><svg onload=alert(1)>' : null),
      headers: () => [['host', '"><svg onload=alert(1)>']],
      body: () => null,
    });
    assert.equal(handled.response.status, 400);
    const body = handled.response.bodyText() ?? '';
    assertClean(body, 'host');
    assert.ok(body.includes(escaped('Invalid Host ""><svg onload=alert(1)>".')));
    assert.match(handled.response.headers.get('x-debug-exception') ?? '', HEADER_SAFE);
  });

  test('log messages and contexts', async () => {
    const app = makeApp('dev', {
      listeners: [
        {
          hook: 'kernel.request',
          placement: { index: 0 },
          listener: listener<'kernel.request'>('Test::xss', 'test', (event) => {
            event.request.logger.warning('app<script>alert(1)</script>', 'Saw {p} and <img src=x onerror=alert(1)>', { p: '<svg onload=alert(1)>', deep: { k: '</title><svg onload=alert(1)>' } });
          }),
        },
      ],
    });
    assertClean((await app.get('/robots.txt')).body, 'logs');
  });
});

describe('robustness', () => {
  test('a log context with a throwing getter and a cycle still renders the full page', async () => {
    const context: Record<string, unknown> = { fine: 1 };
    Object.defineProperty(context, 'boom', { enumerable: true, get: () => { throw new Error('getter exploded'); } });
    context.self = context;
    const app = makeApp('dev', {
      listeners: [
        {
          hook: 'kernel.request',
          placement: { index: 0 },
          listener: listener<'kernel.request'>('Test::hostile', 'test', (event) => {
            // Straight into the buffer: the log stream's own formatter is not what is tested here.
            (event.request.logger.records as unknown[]).push({ datetime: new Date(), channel: 'app', level: 300, levelName: 'warning', message: 'Hostile {boom}', context, extra: {} });
          }),
        },
      ],
    });
    const { status, body } = await app.get('/robots.txt');
    assert.equal(status, 404);
    assert.ok(body.includes('class="exception-hierarchy"'), 'the full page');
    assert.ok(body.includes('[unreadable: getter exploded]'));
    assert.ok(body.includes('[circular]'));
    assert.ok(body.includes('Hostile [unreadable: getter exploded]'), 'the placeholder shows why its value could not be read');
  });

  test('a hostile error (throwing stack, message and property getters) still gets a 500 page', async () => {
    const app = makeApp('dev', {
      routes: [
        {
          name: 'hostile',
          path: '/hostile',
          controller: () => {
            const e = new Error('x');
            Object.defineProperty(e, 'stack', { get: () => { throw new Error('no stack'); } });
            Object.defineProperty(e, 'message', { get: () => { throw new Error('no message'); } });
            Object.defineProperty(e, 'detail', { enumerable: true, get: () => { throw new Error('no detail'); } });
            throw e;
          },
        },
      ],
    });
    const { status, body, headers } = await app.get('/hostile');
    assert.equal(status, 500);
    assert.ok(body.includes('[unreadable message]'));
    assert.ok(body.includes('[unreadable: no detail]'));
    assert.match(headers.get('x-debug-exception-file') ?? '', HEADER_SAFE);
    assert.ok(body.includes(escaped('Uncaught Exception Error: "[unreadable message]" at unknown line 0')), 'logged and listed');
  });

  test('a renderer failure falls back to a minimal page with the same status', () => {
    const request = errorPageRequest();
    Object.defineProperty(request, 'logRecords', { get: () => { throw new Error('records gone'); } });
    const response = renderError(new NotFoundHttpException('<b>nope</b>'), request, true);
    assert.equal(response.status, 404);
    const body = response.bodyText() ?? '';
    assert.ok(body.includes('The full debug page could not be rendered: Error: records gone'));
    assert.ok(body.includes('&lt;b&gt;nope&lt;/b&gt;') && !body.includes('<b>nope'));
  });

  test('an error thrown while handling the error still answers: a minimal 500', async () => {
    const app = makeApp('dev', {
      listeners: [
        {
          hook: 'kernel.exception',
          placement: { before: 'ErrorListener::onKernelException' },
          listener: listener<'kernel.exception'>('Test::breaks', 'test', () => {
            throw new Error('exception listener broke');
          }),
        },
      ],
    });
    const { status, headers, body } = await app.get('/robots.txt');
    assert.equal(status, 500);
    assert.match(headers.get('content-type') ?? '', /^text\/plain/);
    assert.ok(!body.includes('exception listener broke'));
  });
});


describe('status texts', () => {
  test('regression: 413 and 422 were named after RFC 9110 ("Content Too Large", "Unprocessable Content"); Symfony 5.4 says "Payload Too Large" and "Unprocessable Entity"', async () => {
    const routes: RouteDefinition[] = [
      { name: 'big', path: '/big', controller: () => { throw new HttpException(413, 'too big'); } },
      { name: 'bad', path: '/bad', controller: () => { throw new HttpException(422, 'invalid'); } },
    ];
    const dev = makeApp('dev', { routes });
    assert.ok((await dev.get('/big')).body.includes('<title>too big (413 Payload Too Large)</title>'));
    assert.ok((await dev.get('/bad')).body.includes('<title>invalid (422 Unprocessable Entity)</title>'));
    const prod = makeApp('prod', { routes });
    assert.ok((await prod.get('/big')).body.includes('The server returned a "413 Payload Too Large".'));
    const problem = await prod.get('/bad', { accept: 'application/json' });
    assert.equal((JSON.parse(problem.body) as { title: string }).title, 'Unprocessable Entity');
  });
});

describe('the exception\'s own headers', () => {
  test('regression: the exception\'s own Vary (Origin) was replaced by Vary: Accept; Accept is added to it', async () => {
    const routes: RouteDefinition[] = [
      { name: 'cors', path: '/cors', controller: () => { throw new HttpException(503, 'down', undefined, { Vary: 'Origin' }); } },
      { name: 'both', path: '/both', controller: () => { throw new HttpException(503, 'down', undefined, { Vary: 'Origin, accept' }); } },
    ];
    for (const env of ['dev', 'prod'] as const) {
      for (const accept of ['text/html', 'application/json']) {
        const app = makeApp(env, { routes });
        assert.equal((await app.get('/cors', { accept })).headers.get('vary'), 'Origin, Accept', `${env} ${accept}`);
        assert.equal((await app.get('/both', { accept })).headers.get('vary'), 'Origin, accept', `${env} ${accept}: Accept is listed once`);
      }
    }
  });
});

describe('frames come from below the message', () => {
  test('regression: a message line that reads like a frame (`    at x (/path/.env:2:1)`, from a quoted query value) became the first frame, and the debug page showed that file\'s lines', async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'irms-frame-'));
    const secretFile = join(dir, '.env');
    // Built, so that the excerpt of this test's own source (shown around the throw) cannot hold it.
    const canary = ['CANARY', 'ENV', 'FILE'].join('_');
    writeFileSync(secretFile, `APP_ENV=dev\nDATABASE_PASSWORD=${canary}\nX=1\n`);
    try {
      const app = makeApp('dev', {
        routes: [{ name: 'product', path: '/product', controller: (r: KernelRequest) => { throw new NotFoundHttpException(`Product "${String(r.query.get('id'))}" not found.`); } }],
      });
      const id = encodeURIComponent(`x\n    at evil (${secretFile}:2:1)\ny`);
      const html = await app.get(`/product?id=${id}`);
      assert.equal(html.status, 404);
      assert.ok(!html.body.includes(canary), 'the file named in the message is not read');
      assert.ok(!decode(html.headers.get('x-debug-exception-file')).includes(secretFile), 'X-Debug-Exception-File names the throw site');
      assert.ok(decode(html.headers.get('x-debug-exception-file')).endsWith(`error-page.test.ts:${lineOf('test/debug/error-page.test.ts', 'throw new NotFoundHttpException(`Product')}`));
      // The message itself is shown as thrown.
      assert.ok(html.body.includes(escaped(`at evil (${secretFile}:2:1)`)));
      const json = await app.get(`/product?id=${id}`, { accept: 'application/json' });
      const trace = (JSON.parse(json.body) as { trace: { file: string }[] }).trace;
      assert.ok(trace.length > 0 && trace.every((f) => f.file !== secretFile), 'problem+json trace');
      assert.ok(app.logs.every((l) => !l.includes(`${secretFile} line`)), 'the log line names the throw site');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
