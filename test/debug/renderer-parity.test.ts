import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { build } from 'esbuild';
import { createApp, type AppOptions, type KernelRequest } from '../../src/index.ts';
import { renderError } from '../../src/debug/error-renderer.ts';
import { clearExcerptCache } from '../../src/debug/error-page/excerpt.ts';
import { clearSourceMapCache } from '../../src/debug/error-page/source-map.ts';
import { clearFrameCache } from '../../src/debug/stack.ts';
import { errorPageRequest } from '../support/request.ts';

const ORIGIN = 'http://127.0.0.1:8000';

function makeApp(env: 'dev' | 'prod', options: AppOptions = {}) {
  const logs: string[] = [];
  const app = createApp({ env, logSink: (l) => logs.push(l), environment: {}, ...options });
  return {
    logs,
    async request(path: string, init: RequestInit = {}) {
      const response = await app.fetch(new Request(ORIGIN + path, init));
      return { response, status: response.status, headers: response.headers, body: await response.text() };
    },
  };
}

describe('stack text that quotes client input', () => {
  test('regression: a stack line of many " (" (a hand-written "Caused by:" chain quoting a client value) took seconds to parse, quadratically, on every error page', async () => {
    const app = makeApp('dev', {
      routes: [
        {
          name: 'lookup',
          path: '/lookup',
          methods: ['POST'],
          controller: (request: KernelRequest) => {
            const error = new Error('lookup failed');
            // What VError-style libraries do: the cause's text appended to the stack.
            error.stack += `\nCaused by: Error: no such key ${String(request.request.get('q'))}`;
            throw error;
          },
        },
      ],
    });
    // 400 KB: parsed in one pass, well within the timeout; quadratically, minutes per page.
    const q = `x\n    at ${' ('.repeat(200_000)}`;
    for (const accept of ['text/html', 'application/json']) {
      const started = performance.now();
      const { status, body, headers } = await app.request('/lookup', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept },
        body: new URLSearchParams({ q }).toString(),
      });
      assert.equal(status, 500);
      assert.ok(accept === 'application/json' || body.includes('class="exception-hierarchy"'), 'the full page');
      assert.match(headers.get('x-debug-exception-file') ?? '', /renderer-parity\.test\.ts:\d+$/);
      // A bound for a stall, not a speed: the parse is synchronous, which the test's timeout cannot cut short.
      const elapsed = performance.now() - started;
      assert.ok(elapsed < 10_000, `${accept}: answered in ${elapsed.toFixed(0)} ms`);
    }
  });
});

/** An error as thrown from a generated file's line and column (a bundle the host did not map). */
function thrownAt(file: string, line: number, column: number): Error {
  const error = new Error('widget failed');
  error.stack = `Error: widget failed\n    at explode (${file}:${line}:${column})\n    at main (${file}:1:1)`;
  return error;
}

function forgetCaches(): void {
  clearSourceMapCache();
  clearFrameCache();
  clearExcerptCache();
}

describe('source maps of bundles', () => {
  let dir: string;
  let source: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irms-parity-map-'));
    source = join(dir, 'widget.ts');
    // A few hundred functions: an inline map of a few dozen KB, as any real bundle's is (or more).
    const filler = Array.from({ length: 300 }, (_, i) => `export function f${i}(x: number): number { return x * ${i} + ${i}; }`).join('\n');
    writeFileSync(source, `${filler}\nexport function explode(): never {\n  throw new Error('widget failed'); // throw-here\n}\n`);
  });

  after(() => {
    forgetCaches();
    rmSync(dir, { recursive: true, force: true });
  });

  test('regression: an inline source map longer than 4 KB (any real bundle\'s) was never found: the page, X-Debug-Exception-File and the log named dist/*.js, not the TypeScript source', async () => {
    const outfile = join(dir, 'inline.js');
    await build({ entryPoints: [source], outfile, bundle: true, format: 'esm', sourcemap: 'inline', sourcesContent: true, logLevel: 'silent' });
    const code = readFileSync(outfile, 'utf8');
    assert.ok(code.length - code.lastIndexOf('sourceMappingURL=') > 4096, 'the inline map is longer than 4 KB');
    const lines = code.split('\n');
    const genLine = lines.findIndex((l) => l.includes('throw new Error')) + 1;
    const genColumn = lines[genLine - 1]!.indexOf('throw') + 1;
    forgetCaches();
    const response = renderError(thrownAt(outfile, genLine, genColumn), errorPageRequest(), true);
    const sourceLine = readFileSync(source, 'utf8').split('\n').findIndex((l) => l.includes('throw-here')) + 1;
    assert.equal(decodeURIComponent(response.headers.get('x-debug-exception-file') ?? ''), `${source}:${sourceLine}`);
    assert.ok((response.bodyText() ?? '').includes('// throw-here'), 'the excerpt is the TypeScript line');
  });

  test('regression: a source map of millions of empty lines (a broken or hostile .map) took seconds and hundreds of MB to decode, on the request that rendered the page', () => {
    const outfile = join(dir, 'flood.js');
    writeFileSync(outfile, 'throw new Error("widget failed");\n');
    // Near the 16 MB read limit: decoded in a flat array, a second or two; a typed array per line took
    // about 30 s and gigabytes.
    const lineCount = 15_000_000;
    // Line `lineCount` maps column 0 to widget.ts line 3, column 2 (`AAEE`: source 0, +2 lines, +2 columns).
    writeFileSync(`${outfile}.map`, JSON.stringify({ version: 3, sources: ['widget.ts'], names: [], mappings: `${';'.repeat(lineCount - 1)}AAEE` }));
    forgetCaches();
    const started = performance.now();
    const response = renderError(thrownAt(outfile, lineCount, 1), errorPageRequest(), true);
    const elapsed = performance.now() - started;
    assert.equal(decodeURIComponent(response.headers.get('x-debug-exception-file') ?? ''), `${source}:3`);
    // A bound for a stall, not a speed: synchronous work cannot be cut short by the test's timeout.
    assert.ok(elapsed < 10_000, `rendered in ${elapsed.toFixed(0)} ms`);
  });
});
