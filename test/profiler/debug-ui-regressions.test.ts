/**
 * Regressions of the debug UI: profiles lost for odd errors, anonymous
 * visitors shown as authenticated, the favicon 404 becoming "Latest", the toolbar blocked by `-elem`
 * CSP directives or covering the page's bottom, unmapped frames in the Exception panel, search and
 * log filters that lose their values, and cookie lists cut without a marker.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import { profileException } from '../../src/debug/profiler/collect/exception.ts';
import { addCspNonce, toolbarSnippet } from '../../src/debug/toolbar/toolbar.ts';
import { clearSourceMapCache } from '../../src/debug/error-page/source-map.ts';
import { clearFrameCache, isFrameworkFile } from '../../src/debug/stack.ts';
import { HttpResponse } from '../../src/index.ts';
import type { RouteDefinition } from '../../src/routing/route.ts';
import { fixtureRoutes, get, profiledApp, profileOf, tick } from './support.ts';

const JSON_ACCEPT = { headers: { accept: 'application/json' } };
const PAGE = '<!DOCTYPE html><html><head><title>t</title></head><body><p>page</p></body></html>';

function stackNotAString(): Error {
  const e = new Error('stack is a number');
  (e as { stack?: unknown }).stack = 42;
  return e;
}

function messageGetterThrows(): Error {
  const e = new Error('x');
  Object.defineProperty(e, 'message', { get() { throw new Error('getter <img src=x>'); } });
  return e;
}

function proxyAroundError(): Error {
  return new Proxy(new Error('px'), {
    get(target, key) {
      if (key === 'message') throw new Error('trap');
      return Reflect.get(target, key);
    },
  });
}

describe('debug UI regressions', () => {
  test('regression: an error whose stack is no string, whose message getter throws, or a Proxy around an Error keeps its profile', async () => {
    const cases: [string, () => Error, string][] = [
      ['/stacknum', stackNotAString, 'stack is a number'],
      ['/getter', messageGetterThrows, '[unreadable message]'],
      ['/proxy', proxyAroundError, '[unreadable message]'],
    ];
    const routes: RouteDefinition[] = cases.map(([path, make], i) => ({ name: `odd_${i}`, path, controller: () => { throw make(); } }));
    const app = profiledApp({ routes });
    for (const [path, make, message] of cases) {
      // The collector alone: one bad field costs that field, never the chain.
      const direct = profileException(make());
      assert.ok(direct, path);
      assert.equal(direct.class, 'Error', path);
      assert.equal(direct.message, message, path);
      assert.equal(typeof direct.stack, 'string', path);

      const r = await get(app, path);
      assert.equal(r.status, 500, path);
      const token = r.headers.get('x-debug-token')!;
      await tick(10);
      const j = await get(app, `/_profiler/${token}`, JSON_ACCEPT);
      assert.equal(j.status, 200, `${path}: profile stored (log: ${app.logs.find((l) => l.includes('could not store')) ?? 'none'})`);
      const p = await j.json();
      assert.equal(p.exception.class, 'Error', path);
      assert.equal(p.exception.message, message, path);
      assert.equal(p.exception.status, 500, path);
      if (path === '/stacknum') assert.equal(p.exception.stack, '');
      assert.equal((await get(app, `/_wdt/${token}`)).status, 200, `${path}: toolbar`);
      assert.equal((await get(app, `/_profiler/${token}?panel=exception`)).status, 200, `${path}: panel`);
    }
    assert.ok(!app.logs.some((l) => l.includes('could not store profile')), app.logs.filter((l) => l.includes('could not store')).join('\n'));
  });

  test("regression: an anonymous request that reached its controller (member_id '') reads as anonymous, not authenticated", async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const anon = await profileOf(app, await get(app, '/html'));
    // CONTRACT §8.5: the controller saw member_id ''.
    assert.equal(anon.security.memberId, '');
    assert.equal(anon.security.authenticated, false);
    const panel = await (await get(app, `/_profiler/${anon.token}?panel=security`)).text();
    assert.match(panel, /<span>Member<\/span><b>anonymous<\/b>/);
    assert.match(panel, /<span>Authenticated<\/span><b>no<\/b>/);
    assert.match(await (await get(app, `/_wdt/${anon.token}`)).text(), /data-irms-wdt="member"[^>]*><span class="irms-wdt-label">Member<\/span><span class="irms-wdt-value">anon\.</);
    // A 404 never reached a controller (no member_id at all): the same reading.
    const missing = await profileOf(app, await get(app, '/nope'));
    assert.match(await (await get(app, `/_wdt/${missing.token}`)).text(), /<span class="irms-wdt-value">anon\.</);
    // A member still reads as one.
    const member = await profileOf(app, await get(app, '/member/7'));
    assert.equal(member.security.authenticated, true);
    const memberPanel = await (await get(app, `/_profiler/${member.token}?panel=security`)).text();
    assert.match(memberPanel, /<span>Member<\/span><b>7<\/b>/);
    assert.match(memberPanel, /<span>Authenticated<\/span><b>yes<\/b>/);
  });

  test('regression: profiler pages name a data-URI icon, so the browser asks for no /favicon.ico that would become "Latest"', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const p = await profileOf(app, await get(app, '/logs'));
    for (const path of [`/_profiler/${p.token}`, `/_profiler/${p.token}?panel=logs`, `/_profiler/${p.token}/router`, '/_profiler/latest', '/_profiler/search', '/_profiler/empty/search/results?limit=10', '/_profiler/abcdef']) {
      const r = await get(app, path);
      assert.equal(r.status, 200, path);
      const html = await r.text();
      const head = html.slice(0, html.indexOf('</head>'));
      assert.ok(head.includes('<link rel="icon" href="data:," />'), `${path}: icon in <head>`);
      // The page's CSP lets that icon load (img-src covers favicons).
      assert.match(r.headers.get('content-security-policy') ?? '', /img-src [^;]*\bdata:/, path);
    }
  });

  test('regression: the toolbar nonce reaches script-src-elem / style-src-elem, and the Report-Only policy', async () => {
    // -elem directives present: they get the nonce (they decide for <script>/<style> elements).
    assert.equal(
      addCspNonce("default-src 'self'; script-src-elem 'self'; style-src-elem 'self'", 'N'),
      "default-src 'self'; script-src-elem 'self' 'nonce-N'; style-src-elem 'self' 'nonce-N'; script-src 'self' 'nonce-N'; style-src 'self' 'nonce-N'",
    );
    // Same rule as script-src/style-src: a directive that allows inline code alone is left alone.
    assert.equal(
      addCspNonce("script-src 'self'; script-src-elem 'self' 'unsafe-inline'; style-src-elem 'self' 'unsafe-inline' 'nonce-abc'", 'N'),
      "script-src 'self' 'nonce-N'; script-src-elem 'self' 'unsafe-inline'; style-src-elem 'self' 'unsafe-inline' 'nonce-abc' 'nonce-N'",
    );
    // Absent -elem directives are not made up from default-src: the browser falls back to script-src.
    assert.equal(addCspNonce("default-src 'self'", 'N'), "default-src 'self'; script-src 'self' 'nonce-N'; style-src 'self' 'nonce-N'");

    const app = profiledApp({
      routes: [
        {
          name: 'elem',
          path: '/elem',
          controller: () =>
            HttpResponse.html(PAGE, 200, {
              'content-security-policy': "default-src 'self'; script-src-elem 'self'; style-src-elem 'self'",
              'content-security-policy-report-only': "default-src 'none'; script-src-elem 'self'; report-uri /csp-report",
            }),
        },
      ],
    });
    const r = await get(app, '/elem');
    const body = await r.text();
    const nonce = /<script nonce="([^"]+)">/.exec(body)?.[1];
    assert.ok(nonce && body.includes(`<style nonce="${nonce}">`), 'snippet carries a nonce');
    // (The nonce is base64: compared as text, not as a pattern.)
    const csp = r.headers.get('content-security-policy')!;
    assert.ok(csp.includes(`script-src-elem 'self' 'nonce-${nonce}'`), csp);
    assert.ok(csp.includes(`style-src-elem 'self' 'nonce-${nonce}'`), csp);
    const reportOnly = r.headers.get('content-security-policy-report-only')!;
    assert.ok(reportOnly.includes(`script-src-elem 'self' 'nonce-${nonce}'`), reportOnly);
    assert.ok(reportOnly.includes(`style-src 'nonce-${nonce}'`), reportOnly);
  });

  test('regression: the toolbar leaves a clearer as tall as the bar after its placeholder, collapsed while hidden', async () => {
    const urls = { profile: (t: string) => `/_profiler/${t}`, wdt: (t: string) => `/_wdt/${t}`, search: () => '/_profiler/search' };
    const snippet = toolbarSnippet('abc123', urls, null);
    const css = /<style>([^<]*)<\/style>/.exec(snippet)![1]!;
    const barHeight = /\.irms-wdt-bar\{[^}]*height:(\d+px)/.exec(css)?.[1];
    const loadingHeight = /\.irms-wdt-loading\{[^}]*height:(\d+px)/.exec(css)?.[1];
    assert.ok(barHeight && barHeight === loadingHeight, css);
    // In the page's flow (not fixed), right after the fixed placeholder, as tall as the bar.
    assert.match(snippet, /<\/div><\/div><div class="irms-wdt-clearer"[^>]*><\/div><style>/);
    assert.match(css, new RegExp(`\\.irms-wdt-clearer\\{[^}]*display:block[^}]*height:${barHeight}`));
    assert.doesNotMatch(/\.irms-wdt-clearer\{[^}]*\}/.exec(css)![0], /position/);
    // The loader toggles irms-wdt-hidden on the placeholder; the sibling rule collapses the clearer.
    assert.match(css, /\.irms-wdt-hidden\+\.irms-wdt-clearer\{display:none\}/);
    assert.ok(snippet.includes("root.classList.toggle('irms-wdt-hidden'"));
    // And it is what an HTML response gets.
    const app = profiledApp({ routes: fixtureRoutes() });
    const body = await (await get(app, '/html')).text();
    assert.equal(body.split('class="irms-wdt-clearer"').length, 2);
  });

  test('regression: request and response cookies beyond 100 end with a "more cookies not kept" row', async () => {
    const app = profiledApp({
      routes: [
        {
          name: 'cookies',
          path: '/cookies',
          controller: () => {
            const response = HttpResponse.html(PAGE);
            for (let i = 0; i < 120; i++) response.headers.setCookie(`s${i}`, 'v');
            return response;
          },
        },
      ],
    });
    const cookie = Array.from({ length: 300 }, (_, i) => `c${i}=v`).join('; ');
    const p = await profileOf(app, await get(app, '/cookies', { headers: { cookie } }));
    assert.equal(p.request.cookies.length, 101);
    assert.equal(p.request.cookies[99]!.name, 'c99');
    assert.deepEqual(p.request.cookies[100], { name: '…', value: '200 more cookies not kept' });
    assert.equal(p.response.cookies.length, 101);
    assert.equal(p.response.cookies[99]!.name, 's99');
    assert.deepEqual(p.response.cookies[100], { name: '…', value: '20 more cookies not kept', attributes: '' });
    const panel = await (await get(app, `/_profiler/${p.token}?panel=request`)).text();
    assert.ok(panel.includes('200 more cookies not kept') && panel.includes('20 more cookies not kept'));
    // Up to the bound: no marker.
    const few = await profileOf(app, await get(app, '/cookies', { headers: { cookie: 'a=1; b=2' } }));
    assert.deepEqual(few.request.cookies.map((c) => c.name), ['a', 'b']);
  });

  test('regression: the search form keeps a limit and a method it does not list', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const html = await (await get(app, '/_profiler/empty/search/results?limit=3&method=PURGE')).text();
    const method = /<select name="method">(.*?)<\/select>/.exec(html)![1]!;
    const limit = /<select name="limit">(.*?)<\/select>/.exec(html)![1]!;
    assert.match(method, /<option value="PURGE" selected>PURGE<\/option>/);
    assert.equal(method.match(/ selected/g)?.length, 1);
    assert.equal(limit, '<option selected>3</option><option>10</option><option>50</option><option>100</option><option>500</option>');
    const big = await (await get(app, '/_profiler/empty/search/results?limit=1000')).text();
    assert.match(/<select name="limit">(.*?)<\/select>/.exec(big)![1]!, /<option>500<\/option><option selected>1000<\/option>$/);
    // Listed values are selected as before, with no extra option.
    const listed = await (await get(app, '/_profiler/empty/search/results?limit=10&method=POST')).text();
    assert.equal(/<select name="limit">(.*?)<\/select>/.exec(listed)![1], '<option selected>10</option><option>50</option><option>100</option><option>500</option>');
    assert.equal(/<select name="method">(.*?)<\/select>/.exec(listed)![1]!.match(/<option/g)?.length, 8);
  });

  test('regression: the logs panel level filter reads level names as own properties (__proto__, constructor)', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const p = await profileOf(app, await get(app, '/logs'));
    const count = async (q: string) => /id="pf-log-count">([^<]*)</.exec(await (await get(app, `/_profiler/${p.token}?panel=logs${q}`)).text())?.[1];
    const all = await count('');
    assert.match(all ?? '', /^(\d+) of \1 records$/);
    for (const level of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'foo']) assert.equal(await count(`&level=${level}`), all, level);
    assert.notEqual(await count('&level=error'), all);
  });
});

describe('Exception panel frames', () => {
  let dir: string;
  let source: string;
  let bundle: string;
  let genLine = 0;
  let genColumn = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irms-panel-frames-'));
    source = join(dir, 'checkout.ts');
    writeFileSync(source, ['export function pay(amount: number): never {', '  const label: string = `amount ${amount}`;', '  throw new Error(`cannot pay ${label}`); // pay-here', '}', ''].join('\n'));
    bundle = join(dir, 'bundle.js');
    await build({ entryPoints: [source], outfile: bundle, bundle: true, format: 'esm', sourcemap: 'linked', sourcesContent: true, logLevel: 'silent' });
    const lines = readFileSync(bundle, 'utf8').split('\n');
    genLine = lines.findIndex((l) => l.includes('throw new Error')) + 1;
    genColumn = lines[genLine - 1]!.indexOf('throw') + 1;
    clearSourceMapCache();
    clearFrameCache();
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  test("regression: the Exception panel maps bundle frames as the error page does and greys irms-web's own frames", async () => {
    const kernel = join(process.cwd(), 'src/kernel/kernel.ts');
    const app = profiledApp({
      routes: [
        {
          name: 'bundled',
          path: '/bundled',
          controller: () => {
            const e = new Error('cannot pay');
            e.stack = [
              'Error: cannot pay',
              `    at pay (file://${bundle}:${genLine}:${genColumn})`,
              `    at HttpKernel.callController (${kernel}:109:26)`,
              '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
              `    at main (${join(dir, 'app.mjs')}:3:9)`,
            ].join('\n');
            throw e;
          },
        },
      ],
    });
    const p = await profileOf(app, await get(app, '/bundled'));
    const html = await (await get(app, `/_profiler/${p.token}?panel=exception`)).text();
    const frames = [...html.matchAll(/<li class="(pf-app|pf-vendor)"[^>]*><span class="pf-fn">([^<]*)<\/span> at ([^<]*)<\/li>/g)].map((m) => `${m[1]} ${m[2]} ${m[3]}`);
    assert.deepEqual(frames.slice(0, 4), [
      // Mapped through the bundle's source map, as the error page maps it: the TypeScript line.
      `pf-app pay ${source}:3`,
      // irms-web's own code is greyed like node: frames, shown relative to the project.
      'pf-vendor HttpKernel.callController src/kernel/kernel.ts:109',
      'pf-vendor process.processTicksAndRejections node:internal/process/task_queues:95',
      `pf-app main ${join(dir, 'app.mjs')}:3`,
    ]);
    assert.ok(!html.includes(`${bundle}:${genLine}</li>`), 'no unmapped bundle frame');
    assert.ok(isFrameworkFile(kernel) && isFrameworkFile(join(process.cwd(), 'dist/index.js')));
    assert.ok(!isFrameworkFile(join(process.cwd(), 'test/profiler/support.ts')) && !isFrameworkFile(source));
  });
});

describe('frames of a stored exception', () => {
  test('regression: a message line that reads like a frame became a frame of the Exception panel and of the rebuilt exception page, which showed that file\'s lines (also past the stored message\'s 4096-character cut)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'irms-stored-frame-'));
    const secretFile = join(dir, '.env');
    // Built, so that no excerpt of this test's own source can hold it.
    const canary = ['CANARY', 'STORED', 'FRAME'].join('_');
    writeFileSync(secretFile, `A=1\nSECRET=${canary}\nB=2\n`);
    try {
      const app = profiledApp({
        routes: [{ name: 'product', path: '/product', controller: (r) => { throw new Error(`Product "${String(r.query.get('id'))}" not found.`); } }],
      });
      const fake = `\n    at evil (${secretFile}:2:1)\n`;
      for (const id of [`x${fake}y`, `${'x'.repeat(5000)}${fake}y`]) {
        const res = await get(app, `/product?id=${encodeURIComponent(id)}`);
        assert.equal(res.status, 500);
        const p = await profileOf(app, res);
        assert.equal(p.exception!.file.endsWith('debug-ui-regressions.test.ts'), true, 'the stored throw site');
        const panel = await (await get(app, `/_profiler/${p.token}?panel=exception`)).text();
        assert.ok(!/<li class="pf-(?:app|vendor)"[^>]*title="[^"]*\.env/.test(panel), 'no frame of the Exception panel names the file');
        const page = await (await get(app, `/_profiler/${p.token}/exception`)).text();
        assert.ok(!page.includes(canary), 'the rebuilt exception page does not read the file');
        assert.ok(!page.includes(`title="${secretFile}"`), 'nor lists it as a frame');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
