import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { build, type BuildOptions } from 'esbuild';
// @ts-expect-error -- a plain .mjs module without type declarations
import { bundleOptions as sharedOptions } from '../../scripts/bundle-options.mjs';

const bundleOptions = sharedOptions as BuildOptions;
import { clearExcerptCache } from '../../src/debug/error-page/excerpt.ts';
import { clearSourceMapCache, decodeMappings } from '../../src/debug/error-page/source-map.ts';
import { captureStack, clearFrameCache, errorFrames, frameExcerpt, isVendor, parseStack, resolveFrame, throwLocation } from '../../src/debug/stack.ts';
import { NotFoundHttpException } from '../../src/kernel/exceptions.ts';

const run = promisify(execFile);
const ROOT = process.cwd();

function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `${needle} not found`);
  return i + 1;
}

describe('parseStack', () => {
  test('V8 frames: named, anonymous, async, file URLs; other lines ignored', () => {
    const frames = parseStack(
      [
        'Error: boom',
        '    at Router.match (/app/src/routing/router.ts:12:5)',
        '    at async HttpKernel.handle (file:///app/src/kernel/kernel.ts:48:25)',
        '    at /app/src/top.ts:3:1',
        '    at new Promise (<anonymous>)',
        '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)',
      ].join('\n'),
    );
    assert.deepEqual(frames, [
      { fn: 'Router.match', file: '/app/src/routing/router.ts', line: 12, column: 5 },
      { fn: 'HttpKernel.handle', file: 'file:///app/src/kernel/kernel.ts', line: 48, column: 25 },
      { fn: '', file: '/app/src/top.ts', line: 3, column: 1 },
      { fn: 'process.processTicksAndRejections', file: 'node:internal/process/task_queues', line: 95, column: 5 },
    ]);
    assert.deepEqual(parseStack(undefined), []);
  });

  test('vendor frames', () => {
    assert.ok(isVendor('/app/node_modules/he/he.js'));
    assert.ok(isVendor('node:internal/process/task_queues'));
    assert.ok(isVendor('ext:core/01_core.js'));
    assert.ok(!isVendor('/app/src/kernel/kernel.ts'));
  });

  test('frame 0 is the throw site, not the exception constructors', () => {
    const error = new NotFoundHttpException('x'); // throw-site
    const first = errorFrames(error)[0];
    assert.equal(first.file, join(ROOT, 'test/debug/stack.test.ts'));
    assert.equal(first.path, 'test/debug/stack.test.ts');
    assert.equal(first.line, lineOf(readFileSync(join(ROOT, 'test/debug/stack.test.ts'), 'utf8'), '// throw-site'));
    assert.deepEqual(throwLocation(error), { file: first.file, line: first.line });
    assert.ok(!errorFrames(error).some((f) => f.fn.startsWith('new ')));
  });

  test('captureStack: stackless errors get the caller\'s frames, the same text the host prints and shared frames', () => {
    const limit = Error.stackTraceLimit;
    const stackless = () => {
      Error.stackTraceLimit = 0;
      try {
        return [new NotFoundHttpException('a'), new Error('b')] as const;
      } finally {
        Error.stackTraceLimit = limit;
      }
    };
    /** Captures for the errors, and what the host prints for a capture at the same place. */
    const site = (errors: readonly Error[]): string => {
      assert.equal(captureStack(site, errors), true);
      const probe: { stack?: string } = {};
      Error.captureStackTrace(probe, site);
      return probe.stack!.slice(probe.stack!.indexOf('\n'));
    };
    const below = (stack: string | undefined) => stack!.slice(stack!.indexOf('\n'));
    const thrice = [0, 1, 2].map(() => {
      const errors = stackless();
      const host = site(errors); // capture-site
      // The first capture (a miss) and the later ones (hits) carry the host's own text.
      assert.equal(below(errors[0].stack), host);
      assert.equal(below(errors[1].stack), host);
      return errors;
    });
    const line = lineOf(readFileSync(join(ROOT, 'test/debug/stack.test.ts'), 'utf8'), '// capture-site');
    const [[main, cause]] = thrice;
    assert.ok(main.stack!.startsWith('Error: a\n    at '));
    assert.ok(cause.stack!.startsWith('Error: b\n    at '));
    assert.deepEqual(throwLocation(main), { file: join(ROOT, 'test/debug/stack.test.ts'), line });
    assert.equal(errorFrames(main)[0]!.line, line);
    // The three captures from one place share one frames array (the page caches by it).
    assert.equal(errorFrames(thrice[1]![0]), errorFrames(main));
    assert.equal(errorFrames(thrice[2]![1]), errorFrames(cause));
    // A stack replaced afterwards is read again.
    main.stack = 'Error: a\n    at elsewhere (/app/src/other.ts:7:3)';
    assert.deepEqual(errorFrames(main).map((f) => [f.fn, f.file, f.line]), [['elsewhere', '/app/src/other.ts', 7]]);
  });

  test('an error without a stack', () => {
    const error = new Error('x');
    error.stack = undefined;
    assert.deepEqual(throwLocation(error), { file: 'unknown', line: 0 });
  });
});

describe('source maps', () => {
  let dir: string;
  let source: string;

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'irms-sourcemap-'));
    source = join(dir, 'widget.ts');
    writeFileSync(
      source,
      [
        'export interface Widget { id: number }',
        '',
        'export function explode(widget: Widget): never {',
        '  const label: string = `widget ${widget.id}`;',
        '  throw new Error(`cannot explode ${label}`); // throw-here',
        '}',
        '',
      ].join('\n'),
    );
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  test('decodeMappings: VLQ segments per line, relative fields accumulated', () => {
    // Line 1: col 0 → src 0 line 0 col 0; col 2 → line 1 col 2. Line 2: col 4 → line 2 col 0 name 0.
    const lines = decodeMappings('AAAA,EACE;IACFA');
    assert.deepEqual(Array.from(lines[0]), [0, 0, 0, 0, -1, 2, 0, 1, 2, -1]);
    assert.deepEqual(Array.from(lines[1]), [4, 0, 2, 0, 0]);
    // Large and negative values.
    assert.deepEqual(Array.from(decodeMappings('gBAAqB')[0]), [16, 0, 0, 21, -1]);
    assert.deepEqual(Array.from(decodeMappings('gBAAD')[0]), [16, 0, 0, -1, -1]);
    // Malformed input stops, never throws.
    assert.doesNotThrow(() => decodeMappings('A!!;;;ZZZZZZZZZZ'));
  });

  for (const kind of ['linked', 'inline'] as const) {
    test(`a ${kind} map resolves a bundle frame to the TypeScript line, with an excerpt`, async () => {
      const outfile = join(dir, `bundle-${kind}.js`);
      await build({ entryPoints: [source], outfile, bundle: true, format: 'esm', sourcemap: kind, sourcesContent: true, logLevel: 'silent' });
      const code = readFileSync(outfile, 'utf8');
      const genLine = lineOf(code, 'throw new Error');
      const genColumn = code.split('\n')[genLine - 1].indexOf('throw') + 1;
      clearSourceMapCache();
      clearFrameCache();
      const frame = resolveFrame({ fn: 'explode', file: `file://${outfile}`, line: genLine, column: genColumn }, dir);
      assert.equal(frame.file, source);
      assert.equal(frame.path, 'widget.ts');
      assert.equal(frame.line, 5);
      assert.equal(frame.column, 3);
      assert.deepEqual(frame.generated, { file: outfile, line: genLine, column: genColumn });
      const excerpt = frameExcerpt(frame);
      assert.ok(excerpt);
      assert.equal(excerpt.find((l) => l.current)?.text, '  throw new Error(`cannot explode ${label}`); // throw-here');
      assert.equal(excerpt[0].number, 1);
    });
  }

  test('the embedded sourcesContent is used when the source file is gone', async () => {
    const gone = join(dir, 'gone.ts');
    writeFileSync(gone, 'export function f(): never {\n  throw new Error("gone");\n}\n');
    const outfile = join(dir, 'bundle-gone.js');
    await build({ entryPoints: [gone], outfile, bundle: true, format: 'esm', sourcemap: 'linked', sourcesContent: true, logLevel: 'silent' });
    rmSync(gone);
    const code = readFileSync(outfile, 'utf8');
    const genLine = lineOf(code, 'throw new Error');
    clearSourceMapCache();
    clearExcerptCache();
    clearFrameCache();
    const frame = resolveFrame({ fn: 'f', file: outfile, line: genLine, column: 3 }, dir);
    assert.equal(frame.file, gone);
    assert.equal(frame.line, 2);
    assert.equal(frameExcerpt(frame)?.find((l) => l.current)?.text, '  throw new Error("gone");');
  });

  test('no map, a broken map, or an unreadable file: the frame stays as it was', () => {
    const plain = join(dir, 'plain.js');
    writeFileSync(plain, 'throw new Error("x");\n');
    const broken = join(dir, 'broken.js');
    writeFileSync(broken, 'throw new Error("x");\n//# sourceMappingURL=broken.js.map\n');
    writeFileSync(`${broken}.map`, '{not json');
    clearSourceMapCache();
    clearFrameCache();
    for (const file of [plain, broken, join(dir, 'missing.js')]) {
      const f = resolveFrame({ fn: '', file, line: 1, column: 1 }, dir);
      assert.equal(f.file, file);
      assert.equal(f.generated, null);
    }
    assert.equal(frameExcerpt(resolveFrame({ fn: '', file: join(dir, 'missing.ts'), line: 1, column: 1 }, dir)), null);
  });
});

/**
 * The child must be a plain Node: under c8, NODE_V8_COVERAGE makes Node cache every source map, and
 * the app's setSourceMapsEnabled(true) would then map the frames before our own decoder sees them.
 */
function plainNodeEnv(): NodeJS.ProcessEnv {
  // Node copies NODE_V8_COVERAGE into children whose env lacks it; an empty value switches it off.
  return { ...process.env, NODE_OPTIONS: '', NODE_V8_COVERAGE: '' };
}

describe('the esbuild bundle (dist) outside tsx', () => {
  let dir: string;
  const script = (bundle: string) => `
    const { createApp } = await import(${JSON.stringify(bundle)});
    const logs = [];
    const app = createApp({ env: 'dev', logSink: (l) => logs.push(l), environment: {} });
    const r = await app.fetch(new Request('http://127.0.0.1:8000/robots.txt'));
    const body = await r.text();
    console.log(JSON.stringify({ status: r.status, file: r.headers.get('x-debug-exception-file'), log: logs.find((l) => l.includes('Uncaught')), body }));
  `;
  let routerLine = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'irms-bundle-'));
    await build({ ...bundleOptions, entryPoints: { index: join(ROOT, 'src/index.ts') }, outdir: dir, logLevel: 'silent' });
    // The bundle imports `he` and `path-to-regexp`; they resolve from the project's node_modules.
    writeFileSync(join(dir, 'run.mjs'), script(join(dir, 'index.js')));
    routerLine = lineOf(readFileSync(join(ROOT, 'src/listeners/router-listener.ts'), 'utf8'), 'new NotFoundHttpException(message, previous)');
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  test('Node without source-map support: frames, header and log line name src/*.ts', async () => {
    const { stdout } = await run(process.execPath, [join(dir, 'run.mjs')], { cwd: ROOT, env: plainNodeEnv() });
    const out = JSON.parse(stdout);
    assert.equal(out.status, 404);
    assert.equal(decodeURIComponent(out.file), `${join(ROOT, 'src/listeners/router-listener.ts')}:${routerLine}`);
    assert.ok(out.log.includes(`at ${join(ROOT, 'src/listeners/router-listener.ts')} line ${routerLine}`), out.log);
    assert.ok(out.body.includes(`at <code>src/listeners/router-listener.ts:${routerLine}</code>`));
    assert.ok(out.body.includes('class="excerpt"'));
    assert.match(out.body, /mapped from the bundle/);
  });

  test('a host without file access (no process.getBuiltinModule): the page still renders, without excerpts', async () => {
    const preload = `data:text/javascript,${encodeURIComponent('delete process.getBuiltinModule;')}`;
    const { stdout } = await run(process.execPath, ['--import', preload, join(dir, 'run.mjs')], { cwd: ROOT, env: plainNodeEnv() });
    const out = JSON.parse(stdout);
    assert.equal(out.status, 404);
    assert.ok(out.body.includes('class="exception-hierarchy"'));
    assert.ok(!out.body.includes('class="excerpt"'));
  });

  test('Deno: with --allow-read excerpts, without it the same page minus excerpts (and no prompt)', async () => {
    const deno = join(ROOT, 'node_modules/.bin/deno');
    assert.ok(existsSync(deno), 'deno (devDependency) is installed');
    const allowed = JSON.parse((await run(deno, ['run', '--allow-read', '--allow-env', join(dir, 'run.mjs')], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } })).stdout);
    assert.equal(allowed.status, 404);
    assert.equal(decodeURIComponent(allowed.file), `${join(ROOT, 'src/listeners/router-listener.ts')}:${routerLine}`);
    assert.ok(allowed.body.includes('class="excerpt"'));
    const denied = JSON.parse((await run(deno, ['run', '--allow-env', join(dir, 'run.mjs')], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } })).stdout);
    assert.equal(denied.status, 404);
    assert.ok(denied.body.includes('class="exception-hierarchy"'));
    assert.ok(!denied.body.includes('class="excerpt"'));
  });
});
