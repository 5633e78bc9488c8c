/**
 * What the debug path remembers from one request to the next because clients repeat themselves:
 * request headers, request bodies, error stacks, log message templates. Each gives what the work
 * it saves would give, is bounded, and never keeps anything that masking would hide.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rememberedRequestHeaders } from '../../src/debug/profiler/collect.ts';
import { maskContent, rememberedContent } from '../../src/debug/profiler/mask.ts';
import { codeExcerpt } from '../../src/debug/error-page/excerpt.ts';
import { errorFrames, parseStack } from '../../src/debug/stack.ts';
import { interpolate, MAX_TEMPLATE_LENGTH, MAX_TEMPLATES, templateCacheSize } from '../../src/log/record.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixtureRoutes, get, profiledApp, profileOf } from './support.ts';

describe('caches of repeated request data', () => {
  test('request headers: repeated ones give the same profile headers; headers with a secret are never remembered', async () => {
    const app = profiledApp({ routes: fixtureRoutes() });
    const plain = { 'x-note': 'plain', accept: 'text/html' };
    const secret = { 'x-note': 'plain', authorization: 'Bearer CANARY_TOKEN_VALUE' };
    for (const headers of [plain, plain, secret, plain, secret, secret]) {
      const p = await profileOf(app, await get(app, '/html', { headers }));
      assert.equal(p.request.headers['x-note'], 'plain');
      if (headers === secret) {
        assert.equal(p.request.headers.authorization, 'Bearer ***');
        assert.equal(p.request.headers.accept, undefined);
      } else {
        assert.equal(p.request.headers.accept, 'text/html');
        assert.equal(p.request.headers.authorization, undefined);
      }
      assert.ok(!rememberedRequestHeaders().some((v) => v.includes('CANARY')), 'a secret header is not remembered');
    }
    assert.ok(rememberedRequestHeaders().includes('text/html'), 'plain headers are remembered');
  });

  test('request bodies: a clean body is remembered and masked the same again; a body with a secret is not remembered', () => {
    const clean = '{"hello":"world","n":42,"list":[1,2,3]}';
    const first = maskContent(clean, 'application/json', 10_000);
    assert.equal(rememberedContent(), clean);
    assert.equal(maskContent(clean, 'application/json', 10_000), first);
    assert.equal(maskContent(clean, 'application/json', 10), first.slice(0, 10), 'the bound is part of the key');
    assert.equal(maskContent(clean, 'text/plain', 10_000), first, 'JSON-looking bodies are masked as JSON');
    const secret = '{"user":"ada","password":"CANARY_PASSWORD"}';
    for (let i = 0; i < 2; i++) {
      const masked = maskContent(secret, 'application/json', 10_000);
      assert.ok(!masked.includes('CANARY'));
      assert.notEqual(rememberedContent(), secret);
    }
    maskContent('a=1&password=CANARY_FORM', 'application/x-www-form-urlencoded', 10_000);
    assert.ok(!rememberedContent()?.includes('CANARY'));
    assert.equal(maskContent('a=1&b=2', 'application/x-www-form-urlencoded', 10_000), 'a=1&b=2');
    assert.equal(rememberedContent(), 'a=1&b=2');
    const big = JSON.stringify({ text: 'x'.repeat(20_000) });
    maskContent(big, 'application/json', 100_000);
    assert.notEqual(rememberedContent(), big, 'large bodies are not remembered');
  });

  test('error stacks: the same stack, looked up again and again, gives the same frames as parsing it', () => {
    const errors: Error[] = [];
    const make = (i: number) => new Error(`boom ${i}`);
    for (let i = 0; i < 12; i++) errors.push(make(i % 3));
    for (const e of errors) {
      const frames = errorFrames(e);
      assert.deepEqual(frames.map((f) => `${f.fn}:${f.line}`), parseStack(e.stack).map((f) => `${f.fn}:${f.line}`).slice(0, frames.length));
    }
    assert.equal(errorFrames(errors[0]!), errorFrames(errors[3]!), 'one frames array per throw site');
  });

  test('profiled stacks: a repeated stack is stored as scrubbed each time, a secret in it never', async () => {
    const app = profiledApp({
      routes: [
        { name: 'leak', path: '/leak', controller: () => { throw new Error('failed for https://x.test/?token=CANARY_STACK_TOKEN'); } },
        { name: 'plain', path: '/plain-error', controller: () => { throw new Error('plain failure'); } },
      ],
    });
    for (const path of ['/leak', '/plain-error', '/leak', '/plain-error', '/plain-error']) {
      const p = await profileOf(app, await get(app, path));
      assert.ok(p.exception, path);
      assert.ok(!p.exception.stack.includes('CANARY'), path);
      assert.ok(p.exception.stack.startsWith(path === '/leak' ? 'Error: failed for https://x.test/?token=***' : 'Error: plain failure'), path);
      assert.match(p.exception.stack, /\n {4}at /, path);
    }
  });

  test('log message templates: interpolation as a regular expression for Monolog\'s any-key placeholders does it; the cache is bounded', () => {
    const reference = (message: string, context: Record<string, unknown>) =>
      message.replace(/\{([^{}]{0,256})\}/g, (whole, key: string) => {
        const v = context[key];
        if (v === null || v === undefined) return v === null ? '' : whole;
        if (!Object.hasOwn(context, key)) return whole;
        if (typeof v === 'boolean') return v ? '1' : '';
        if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') return String(v);
        if (v instanceof Date) return v.toISOString();
        if (typeof v === 'object') return `array${JSON.stringify(v)}`;
        return whole;
      });
    const context = { a: 1, b: 'two', n: null, t: true, big: 10n, d: new Date(0), o: { x: 1 }, 'a.b': 'dot', $: 'dollar', '$&': 'x' };
    const messages = ['{a} {b} {n} {t} {big} {d} {o} {missing} {a.b}', '{{a}}', '{a', 'a}', '{}', '{$&}', '{ a }', '{a}{b}', 'no placeholders', '{constructor} {__proto__} {toString}', '$& {b} $1'];
    for (const m of messages) {
      assert.equal(interpolate(m, context), reference(m, context), m);
      assert.equal(interpolate(m, context), reference(m, context), `${m} (cached)`);
    }
    for (let i = 0; i < MAX_TEMPLATES + 10; i++) interpolate(`m${i} {a}`, context);
    assert.ok(templateCacheSize() <= MAX_TEMPLATES);
    const long = `${'x'.repeat(MAX_TEMPLATE_LENGTH)} {a}`;
    const before = templateCacheSize();
    assert.equal(interpolate(long, context), reference(long, context));
    assert.equal(templateCacheSize(), before, 'long messages are not cached');
  });

  test('code excerpts: lines of a file with characters beyond Latin-1 read as they are', () => {
    const dir = mkdtempSync(join(tmpdir(), 'irms-excerpt-'));
    const file = join(dir, 'source.ts');
    const lines = ['// a dash — here', 'const a = 1;', 'const é = "latin-1";', 'const b = "😀";', 'return a;'];
    try {
      writeFileSync(file, lines.join('\n'));
      const excerpt = codeExcerpt(file, 3)!;
      assert.deepEqual(excerpt.map((l) => l.text), lines);
      assert.deepEqual(excerpt.map((l) => l.current), [false, false, true, false, false]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
