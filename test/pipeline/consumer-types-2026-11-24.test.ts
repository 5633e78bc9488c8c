import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * Type problems a first-time consumer hit on 2026-11-24, compiled as test/pipeline/types.test.ts compiles the
 * README: a strict project outside this repository that imports `irms-web` through package.json's `types`
 * condition (dist/types/, made by `npm test`'s build step), with `skipLibCheck: false`.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const consumer = mkdtempSync(join(tmpdir(), 'irms-consumer-types-'));
after(() => rmSync(consumer, { recursive: true, force: true }));

mkdirSync(join(consumer, 'node_modules'));
symlinkSync(root, join(consumer, 'node_modules', 'irms-web'), 'dir');
symlinkSync(join(root, 'node_modules', '@types'), join(consumer, 'node_modules', '@types'), 'dir');
writeFileSync(join(consumer, 'package.json'), JSON.stringify({ type: 'module', private: true }));

function compile(name: string, text: string): { ok: boolean; output: string } {
  writeFileSync(join(consumer, name), text);
  const config = {
    compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2023', 'dom'], types: ['node'] },
    files: [name],
  };
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(config));
  const run = spawnSync(process.execPath, [tsc, '-p', consumer], { encoding: 'utf8' });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

/** The part of Deno 2.9's `lib.deno.d.ts` (`deno types`) that `Deno.serve` and `deno serve` check a handler against. */
const DENO = [
  'declare namespace Deno {',
  "  interface NetAddr { transport: 'tcp' | 'udp'; hostname: string; port: number }",
  "  interface UnixAddr { transport: 'unix' | 'unixpacket'; path: string }",
  "  interface VsockAddr { transport: 'vsock'; cid: number; port: number }",
  '  type Addr = NetAddr | UnixAddr | VsockAddr;',
  '  interface ServeHandlerInfo<A extends Addr = Addr> { remoteAddr: A; completed: Promise<void> }',
  '  type ServeHandler<A extends Addr = Addr> = (request: Request, info: ServeHandlerInfo<A>) => Response | Promise<Response>;',
  '  interface ServeDefaultExport { fetch: ServeHandler }',
  '  function serve(options: { port?: number; hostname?: string }, handler: ServeHandler<NetAddr>): unknown;',
  '}',
].join('\n');

test("regression: app.fetch refused Deno's handler info (Deno.serve(o, app.fetch), `{ fetch: app.fetch } satisfies Deno.ServeDefaultExport`: TS2345/TS2322), which it reads at runtime and the README says works under deno serve", () => {
  const { ok, output } = compile('deno-fetch.ts', [
    "import { createApp } from 'irms-web';",
    DENO,
    'const app = createApp({});',
    'Deno.serve({ port: 8000 }, app.fetch);',
    'Deno.serve({ port: 8000 }, app.respond);',
    'export default { fetch: app.fetch } satisfies Deno.ServeDefaultExport;',
  ].join('\n'));
  assert.ok(ok, output);
});

test('regression: denoServeHandler(app) was no `deno serve` handler (`{ fetch: denoServeHandler(app) } satisfies Deno.ServeDefaultExport`: TS2322, DenoServeInfo.remoteAddr refused Deno.UnixAddr and Deno.VsockAddr)', () => {
  const { ok, output } = compile('deno-handler.ts', [
    "import { createApp, denoServeHandler } from 'irms-web';",
    DENO,
    'const app = createApp({});',
    'Deno.serve({ port: 8000 }, denoServeHandler(app));',
    'export default { fetch: denoServeHandler(app) } satisfies Deno.ServeDefaultExport;',
  ].join('\n'));
  assert.ok(ok, output);
});

test('regression: SessionNotLoadedError, which the README names as the error of a session read before `await startSession(request)`, was not exported (TS2305)', () => {
  const { ok, output } = compile('session-not-loaded.ts', [
    "import { SessionNotLoadedError, startSession, type KernelRequest } from 'irms-web';",
    'export async function read(request: KernelRequest): Promise<unknown> {',
    '  try { return request.getSession().get(\'cart\'); }',
    '  catch (error) { if (error instanceof SessionNotLoadedError) { await startSession(request); return request.getSession().get(\'cart\'); } throw error; }',
    '}',
  ].join('\n'));
  assert.ok(ok, output);
});

test('regression: a first-time consumer needed casts for the common reads: toArray() fields, a session or parameter read with a fallback (still `| undefined`), and a Headers object passed to HttpResponse.json', () => {
  const { ok, output } = compile('everyday-reads.ts', [
    "import { HttpResponse, type KernelRequest } from 'irms-web';",
    'export async function create(request: KernelRequest): Promise<HttpResponse> {',
    '  const body = await request.toArray<{ name?: string; quantity?: number }>();',
    '  const name: string = body.name ?? "anonymous";',
    "  const cart: string[] = request.getSession().get<string[]>('cart', []);",
    '  cart.push(name);',
    "  const page: string = request.query.get('page', '1') as string;",
    "  const headers = new Headers({ 'x-cart-size': String(cart.length) });",
    '  return HttpResponse.json({ name, page, quantity: body.quantity ?? 1 }, 201, headers);',
    '}',
  ].join('\n'));
  assert.ok(ok, output);
});
