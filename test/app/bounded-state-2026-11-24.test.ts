/**
 * Per-process state that a client can make grow: every cache keyed by something a request carries is
 * bounded in count and in bytes (the length of what it keeps), whatever the traffic. Counts, not time:
 * each test sends a fixed number of requests in-process and reads the structure's size.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp, HttpResponse, type AppOptions } from '../../src/index.ts';
import { KernelRequest } from '../../src/http/request.ts';
import { checkedHeaderNameChars } from '../../src/http/response.ts';
import { ResponseEvent } from '../../src/kernel/events.ts';
import { ResponseListener } from '../../src/listeners/response-listener.ts';
import { rememberedHeaderChars } from '../../src/debug/profiler/mask.ts';
import { templateCacheSize, MAX_TEMPLATES } from '../../src/log/record.ts';
import { source, settings } from '../support/request.ts';

function quietApp(options: AppOptions = {}) {
  return createApp({ env: 'prod', logSink: () => {}, environment: {}, ...options });
}

/** Lets kernel.terminate (where the profiler collects and masks) run. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('bounded per-process state', () => {
  test('regression: the charset check remembered response content types of any length (64 client-sized types kept)', async () => {
    const listener = new ResponseListener();
    const kept = (listener as unknown as { lacksCharsetByType: Map<string, boolean> }).lacksCharsetByType;
    // An app that sends an upload back with the type its client declared (multipart part headers are
    // body bytes: no header limit applies to them).
    const long = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 200; i++) {
      const request = new KernelRequest(source({ target: `/file/${i}` }), settings());
      const response = new HttpResponse('data', 200, { 'content-type': `text/plain; name=${long}${i}` });
      await listener.onKernelResponse.call(new ResponseEvent(request, response));
      assert.ok(response.headers.get('content-type')!.endsWith('; charset=UTF-8'), 'a long text type still gets its charset');
    }
    let chars = 0;
    for (const type of kept.keys()) chars += type.length;
    assert.ok(chars <= 64 * 256, `remembered content types hold ${chars} characters`);

    // The usual short types are still remembered (the cache is bounded, not gone).
    const request = new KernelRequest(source(), settings());
    await listener.onKernelResponse.call(new ResponseEvent(request, new HttpResponse('x', 200, { 'content-type': 'text/csv' })));
    assert.equal(kept.get('text/csv'), true);
  });

  test('regression: the profiler remembered 256 client-chosen request header names of any length', async () => {
    const app = createApp({ env: 'dev', logSink: () => {}, environment: {}, routes: [{ name: 'home', path: '/', controller: () => HttpResponse.text('ok') }] });
    const filler = 'n'.repeat(4000);
    for (let i = 0; i < 300; i++) {
      const response = await app.fetch(new Request('http://localhost/', { headers: { [`x-${filler}-${i}`]: 'plain' } }));
      await response.arrayBuffer();
      await turn();
    }
    await turn();
    const chars = rememberedHeaderChars();
    assert.ok(chars <= 256 * (64 + 512), `remembered header names and values hold ${chars} characters`);
  });

  test('regression: response header names were remembered as checked whatever their length (1,024 names of any size)', async () => {
    // A proxy-style controller copying an upstream's header names.
    const app = quietApp({
      routes: [
        {
          name: 'relay',
          path: '/relay',
          controller: (request) => {
            const response = HttpResponse.text('relayed');
            response.headers.set(String(request.query.get('h')), '1');
            return response;
          },
        },
      ],
    });
    const filler = 'a'.repeat(2000);
    for (let i = 0; i < 1100; i++) {
      const response = await app.fetch(new Request(`http://localhost/relay?h=x-${filler}-${i}`));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get(`x-${filler}-${i}`), '1');
    }
    const chars = checkedHeaderNameChars();
    assert.ok(chars <= 1024 * 64, `remembered header names hold ${chars} characters`);
  });

  test('hostile hosts, paths, query names, cookies, headers and languages leave the client-keyed caches at their bounds (production and debug)', async () => {
    const routes = [
      { name: 'home', path: '/', controller: () => HttpResponse.text('ok') },
      { name: 'item', path: '/item/:id', controller: (request: KernelRequest) => {
        request.logger.warning('app', `Item ${String(request.attributes.get('id'))} asked {by}`, { by: request.query.get('by') });
        return HttpResponse.text(String(request.getPreferredLanguage(['en', 'fr'])), 200, { 'content-type': `text/plain; v=${request.query.get('v') ?? ''}` });
      } },
    ];
    for (const env of ['prod', 'dev'] as const) {
      const app = createApp({ env, logSink: () => {}, environment: {}, routes });
      const n = env === 'prod' ? 3000 : 600;
      for (let i = 0; i < n; i++) {
        const path = i % 3 === 0 ? `/item/${i}` : i % 3 === 1 ? `/missing/${i}/${'p'.repeat(i % 300)}` : '/';
        const response = await app.fetch(
          new Request(`http://h${i}.example${path}?q${i}=1&v=${i}&by=u${i}`, {
            headers: {
              host: `h${i}.example`,
              'accept-language': `x${i};q=0.9, fr;q=0.${i % 9}`,
              cookie: `c${i}=v; PHPSESSID=${'s'.repeat(30)}${i}`,
              [`x-h${i}`]: `v${i}`,
            },
          }),
        );
        await response.arrayBuffer();
      }
      await turn();
      assert.ok(templateCacheSize() <= MAX_TEMPLATES, `log templates: ${templateCacheSize()}`);
      assert.ok(rememberedHeaderChars() <= 256 * (64 + 512));
      assert.ok(checkedHeaderNameChars() <= 1024 * 64);
      const profiler = app.services.profiler;
      if (profiler !== undefined) assert.ok((profiler.store as unknown as { size: number }).size <= 1000);
    }
  });
});

test('regression: a burst of distinct paths (a crawl) filled the firewall map\'s path cache for good, and the service\'s own paths were matched against every pattern from then on', async () => {
  const { FirewallMap } = await import('../../src/security/firewall-map.ts');
  const map = new FirewallMap([{ name: 'admin', pattern: '^/admin' }, { name: 'main' }]);
  const cache = (map as unknown as { byPath: Map<string, unknown> }).byPath;
  for (let i = 0; i < 1000; i++) map.match(`/crawl/${i}`);
  assert.ok(cache.size <= 256, `bounded: ${cache.size}`);
  assert.equal(map.match('/admin/users')?.name, 'admin');
  assert.ok(cache.has('/admin/users'), 'a path seen after the burst is remembered again');
  assert.equal(map.match('/admin/users')?.name, 'admin', 'and answered the same from the cache');
});
