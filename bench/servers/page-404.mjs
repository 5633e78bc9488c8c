// The 404 body the hand-written baselines send: 'Not Found' (the default), or with BENCH_404_PAGE set,
// one of irms-web's own 404 pages taken from the real app once at start-up — `prod` (the contract's
// 1 KB page) or `debug` (the exception page of a debug-mode 404, 53 KB). The baselines then send a page
// of irms-web's size with their own single header, which separates what a page's size costs the
// runtime from what the kernel costs (BENCHMARKS.md).
const getenv = (n) => globalThis.process?.env?.[n] ?? globalThis.Deno?.env.get(n);

async function irmsPage(mode) {
  const { makeApp, bareSource } = await import('./irms-app.mjs');
  const app = makeApp(mode, { logSink: () => {} });
  const { response } = await app.handle(bareSource('GET', '/does-not-exist'));
  if (response.status !== 404 || typeof response.body !== 'string') throw new Error(`no ${mode} 404 page`);
  return { body: response.body, contentType: 'text/html; charset=UTF-8' };
}

const which = getenv('BENCH_404_PAGE');
if (which && which !== 'prod' && which !== 'debug') throw new Error(`BENCH_404_PAGE: prod or debug, not ${which}`);

/** The 404 answer: body and content type. */
export const notFoundPage = which ? await irmsPage(which) : { body: 'Not Found', contentType: 'text/plain; charset=utf-8' };
