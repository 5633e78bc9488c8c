import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';

/**
 * The package as a TypeScript user gets it: a strict project outside this repository imports `irms-web`
 * and `irms-web/node` through package.json's `types` conditions (dist/types/, made by `npm test`'s build
 * step) and compiles the README's TypeScript examples.
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const consumer = mkdtempSync(join(tmpdir(), 'irms-types-'));
after(() => rmSync(consumer, { recursive: true, force: true }));

mkdirSync(join(consumer, 'node_modules'));
symlinkSync(root, join(consumer, 'node_modules', 'irms-web'), 'dir');
symlinkSync(join(root, 'node_modules', '@types'), join(consumer, 'node_modules', '@types'), 'dir');
writeFileSync(join(consumer, 'package.json'), JSON.stringify({ type: 'module', private: true }));

/** The free names each README example leaves to its surroundings, declared from the package's own types. */
const SURROUNDINGS = [
  '',
  "import { HttpResponse, type KernelRequest } from 'irms-web';\ndeclare function validateOrder(data: Record<string, unknown>): { propertyPath: string; title: string }[];\n",
  "import { createApp, type Listener } from 'irms-web';\ndeclare const myListener: Listener<'kernel.response'>;\n",
  "import { createApp } from 'irms-web';\nconst app = createApp({});\n" +
    'declare const Bun: { serve(o: { port: number; fetch(r: Request, s: { requestIP(r: Request): { address: string } | null }): Promise<Response> }): { hostname: string; port: number } };\n',
  "import { createApp, type KernelRequest } from 'irms-web';\ndeclare const request: KernelRequest;\nconst app = createApp({});\n",
  'declare const apiKeys: { find(key: string): Promise<{ memberId: string; roles: string[] } | undefined> };\n',
  "import type { KernelRequest } from 'irms-web';\ndeclare class Post { author: string; published: boolean }\ndeclare function editPost(request: KernelRequest): unknown;\ndeclare function findPost(id: unknown): Promise<Post | null>;\n",
];

/** Compiles the files with the consumer's settings; the compiler's output, and whether it succeeded. */
function compile(files: Record<string, string>, moduleResolution: 'nodenext' | 'bundler'): { ok: boolean; output: string } {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(consumer, name), text);
  const config = {
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: 'es2022',
      module: moduleResolution === 'nodenext' ? 'nodenext' : 'esnext',
      moduleResolution,
      lib: ['es2023', 'dom'],
      types: ['node'],
    },
    files: Object.keys(files),
  };
  writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(config));
  const run = spawnSync(process.execPath, [tsc, '-p', consumer], { encoding: 'utf8' });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}` };
}

const examples = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```ts\n([^]*?)```/g)].map((m) => m[1]!);

test('regression: the package shipped no type declarations, so a strict consumer of the README example got TS7016', () => {
  assert.equal(examples.length, SURROUNDINGS.length, 'one declared surrounding per README example');
  const files = Object.fromEntries(examples.map((code, i) => [`example-${i + 1}.ts`, `${SURROUNDINGS[i]}${code}\nexport {};\n`]));
  for (const resolution of ['nodenext', 'bundler'] as const) {
    const { ok, output } = compile(files, resolution);
    assert.ok(ok, `${resolution}:\n${output}`);
  }
});

test('regression: an inline listener got the union of every event (TS2339 on event.response), route options were untyped', () => {
  const inline = [
    "import { createApp, HttpResponse } from 'irms-web';",
    'createApp({',
    "  routes: [{ name: 'page', path: '/page/:name', controller: (r) => ({ name: r.attributes.get('name') }),",
    "    options: { template: (data) => `<h1>${String(data.name)}</h1>`, cache: { maxAge: 60, public: true }, requiresLogin: true } }],",
    "  listeners: [{ hook: 'kernel.response', listener: { id: 'App::addHeader', role: 'adds a header', call(event) { event.response.headers.set('x-app', '1'); } } }],",
    '});',
    'void HttpResponse;',
    'export {};',
  ].join('\n');
  const { ok, output } = compile({ 'inline.ts': inline }, 'nodenext');
  assert.ok(ok, output);
});

test('the declarations are the real types, not any: misuse is a compile error', () => {
  const { ok, output } = compile(
    {
      'misuse.ts': [
        "import { createApp, HttpResponse } from 'irms-web';",
        "import { serve } from 'irms-web/node';",
        'const app = createApp({ routes: [{ name: 1, path: "/a", controller: () => HttpResponse.text("a") }] });',
        'const answer: string = app.fetch(new Request("http://localhost/a"));',
        'serve(app, { port: "8000" });',
        'createApp({ routes: [{ name: "c", path: "/c", controller: () => HttpResponse.text("c"), options: { cache: { maxage: 60 } } }] });',
        'createApp({ listeners: [{ hook: "kernel.request", listener: { id: "A::b", role: "r", call(event) { event.response.headers.set("x", "1"); } } }] });',
        'export {};',
      ].join('\n'),
    },
    'nodenext',
  );
  assert.equal(ok, false);
  assert.match(output, /misuse\.ts\(3,\d+\): error TS2322: Type 'number' is not assignable to type 'string'/);
  assert.match(output, /misuse\.ts\(4,7\): error TS2322: Type 'Promise<Response>' is not assignable to type 'string'/);
  assert.match(output, /misuse\.ts\(5,\d+\): error TS2322: Type 'string' is not assignable to type 'number'/);
  assert.match(output, /misuse\.ts\(6,\d+\): error TS2561: Object literal may only specify known properties, but 'maxage' does not exist in type 'CacheOptions'\. Did you mean to write 'maxAge'\?/);
  assert.match(output, /misuse\.ts\(7,\d+\): error TS18047: 'event\.response' is possibly 'null'/);
});

test('regression: the declarations refused an own className on a subclass of a built-in HTTP exception (TS2417) and readonly tables (DEFAULT_FIREWALLS, `as const` rules and routes: TS4104)', () => {
  const documented = [
    "import { createApp, DEFAULT_FIREWALLS, HttpResponse, NotFoundHttpException } from 'irms-web';",
    "class PostNotFound extends NotFoundHttpException { static override readonly className = 'PostNotFound'; }",
    'createApp({',
    '  firewalls: DEFAULT_FIREWALLS,',
    "  accessControl: [{ path: '^/admin', roles: ['ROLE_ADMIN'], methods: ['GET', 'POST'] }] as const,",
    "  routes: [{ name: 'p', path: '/p', methods: ['GET'], controller: () => { throw new PostNotFound('no post'); } }] as const,",
    '});',
    'export { HttpResponse };',
  ].join('\n');
  const { ok, output } = compile({ 'readonly.ts': documented }, 'nodenext');
  assert.ok(ok, output);
});

test('regression: the declarations refused documented values that work (a numeric-string maxAge, template bytes, a null or digit statusCode, refreshMember answering the member it was given)', () => {
  const documented = [
    "import { createApp, HttpResponse } from 'irms-web';",
    'createApp({',
    '  refreshMember: (member) => member,',
    '  routes: [',
    "    { name: 'c', path: '/c', options: { cache: { maxAge: '60', sMaxAge: 120 } }, controller: () => HttpResponse.text('') },",
    "    { name: 't', path: '/t', options: { template: () => new TextEncoder().encode('<p>x</p>') }, controller: () => ({}) },",
    "    { name: 's', path: '/s', options: { security: { predicate: () => false, statusCode: null } }, controller: () => HttpResponse.text('') },",
    "    { name: 'g', path: '/g', options: { isGranted: { attributes: 'ROLE_X', statusCode: '404' } }, controller: () => HttpResponse.text('') },",
    '  ],',
    '});',
    'export {};',
  ].join('\n');
  const { ok, output } = compile({ 'documented.ts': documented }, 'nodenext');
  assert.ok(ok, output);
});
