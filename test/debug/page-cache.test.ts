/**
 * What the debug error page caches between requests (frames per throw site, their views and HTML, the
 * escaped trace lines) never changes what a page shows: a page rendered with warm caches is the page
 * rendered from scratch.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, test } from 'node:test';
import { renderError } from '../../src/debug/error-renderer.ts';
import { escapeHtml } from '../../src/debug/error-page/escape.ts';
import { isoString, isoStringOf } from '../../src/debug/error-page/iso-date.ts';
import { clearExcerptCache } from '../../src/debug/error-page/excerpt.ts';
import { clearFrameCache, errorFrames, parseStack, resolveFrame, stackOf } from '../../src/debug/stack.ts';
import { NotFoundHttpException } from '../../src/kernel/exceptions.ts';
import { errorPageRequest } from '../support/request.ts';

const he = createRequire(import.meta.url)('he') as { escape(s: string): string; decode(s: string): string };

/** What a UTF-8 page shows for `s`: a lone surrogate is written as U+FFFD. */
const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');


/** Errors thrown from one place, with the given messages. */
function fromOnePlace(messages: string[]): Error[] {
  return messages.map((m) => new NotFoundHttpException(m)); // one-place
}

function freshFrames(error: Error) {
  return parseStack(stackOf(error)).map((f) => resolveFrame(f));
}

describe('debug page caches', () => {
  test('escapeHtml writes what he.escape writes; characters beyond ASCII as references to the same text', () => {
    const pool = ['"', '&', "'", '<', '>', '`', 'a', 'é', '\u2026', '\ud83d', '\ude00', '\n', '&amp;'];
    const samples = ['', 'plain text', '<a href="x">&\'`</a>', 'x<', '>y'];
    for (let i = 0; i < 3000; i++) {
      let s = '';
      for (let j = Math.floor(Math.random() * 16); j > 0; j--) s += pool[Math.floor(Math.random() * pool.length)];
      samples.push(s);
    }
    for (const s of samples) {
      const html = escapeHtml(s);
      if (/^[\x00-\x7f]*$/.test(s)) assert.equal(html, he.escape(s), JSON.stringify(s));
      else assert.match(html, /^[\x00-\x7f]*$/, JSON.stringify(s));
      assert.equal(he.decode(html), wellFormed(s), JSON.stringify(s));
    }
  });

  test('errors thrown from one place share their resolved frames, and the frames are right', () => {
    const [a, b] = fromOnePlace(['first message', 'second, longer message\nover two lines']);
    const fa = errorFrames(a!);
    const fb = errorFrames(b!);
    assert.equal(fa, fb, 'one array per throw site');
    assert.ok(fa.length > 0);
    assert.ok(!fa.some((f) => f.fn.startsWith('new ')), 'constructor frames dropped');
    const fresh = freshFrames(a!);
    assert.deepEqual(fa, fresh.slice(fresh.length - fa.length));
  });

  test('a message that looks like stack frames is read as without the cache: as message, not frames', () => {
    const error = new Error('boom\n    at fake (/nowhere/fake.ts:1:1)');
    const frames = errorFrames(error);
    // A frame line inside the message is no frame (the page would read that file): frames start below it.
    assert.ok(frames.length > 0 && frames.every((f) => f.file !== '/nowhere/fake.ts'), 'no frame from the message');
    assert.ok(frames[0]!.file.endsWith('page-cache.test.ts'));
    clearFrameCache();
    assert.deepEqual(errorFrames(error), frames);
  });

  test('a page rendered with warm caches equals the page rendered from scratch', () => {
    const messages = ['No route found for "GET /a"', 'No route found for "GET /b?x=<i>&y=`1`"', 'third\nmessage'];
    const errors = fromOnePlace(messages);
    clearFrameCache();
    const warm = errors.map((error) => renderError(error, errorPageRequest(), true).bodyText() ?? '');
    for (const [i, error] of errors.entries()) {
      clearFrameCache();
      clearExcerptCache();
      assert.equal(warm[i], renderError(error, errorPageRequest(), true).bodyText() ?? '', `page ${i}`);
    }
    assert.ok(warm[1]!.includes('&quot;GET /b?x=&lt;i&gt;&amp;y=&#x60;1&#x60;&quot;'));
    assert.ok(warm[0]!.includes('page-cache.test.ts'), 'frames point at this file');
  });

  test('a stack trace tab equals the plain trace of the frames, escaped', () => {
    const [error] = fromOnePlace(['<trace> & "quotes"']);
    const body = renderError(error!, errorPageRequest(), true).bodyText() ?? '';
    const pre = /<pre class="stacktrace" id="trace-text-1">([\s\S]*?)<\/pre>/.exec(body)![1]!;
    const lines = errorFrames(error!).map((f) => (f.fn ? `  at ${f.fn} (${f.path}:${f.line}:${f.column})` : `  at ${f.path}:${f.line}:${f.column}`));
    assert.equal(pre, he.escape(['NotFoundHttpException:', '<trace> & "quotes"', '', ...lines].join('\n')));
  });

  test('isoString writes what toISOString writes (same millisecond, next millisecond, other minutes, edges)', () => {
    const times = [0, 1, 59_999, 60_000, 1_795_317_276_069, 1_795_317_276_069, 1_795_317_276_070, 253_402_300_799_999, 253_402_300_800_000, -1, -86_400_001, 1.5];
    for (let i = 0; i < 20_000; i++) times.push(Math.floor(Math.random() * 4e12), 1_795_000_000_000 + i * 7);
    for (const t of times) {
      assert.equal(isoStringOf(t), new Date(t).toISOString(), String(t));
      assert.equal(isoString(new Date(t)), new Date(t).toISOString(), String(t));
    }
    assert.throws(() => isoStringOf(NaN), RangeError);
    assert.throws(() => isoString(new Date(NaN)), RangeError);
    class Shifted extends Date {
      override toISOString(): string {
        return 'shifted';
      }
    }
    assert.equal(isoString(new Shifted(0)), 'shifted', 'a subclass keeps its own toISOString');
  });
});
