// The irms-web bench app: the same four routes as every other server, built from dist/.
// mode: 'prod' (env prod, debug off) or 'debug' (env dev, debug on: every request profiled).
import { createApp, HttpResponse } from '../../dist/index.js';

const getenv = (n) => globalThis.process?.env?.[n] ?? globalThis.Deno?.env.get(n);

/**
 * POST /echo answers the JSON body back. With JsonRequestTransformerListener in the app, the body
 * arrives as request parameters (`req.request.all()`); without it, the controller parses the body.
 */
function echoRoutes(hasJsonListener) {
  return [
    { name: 'home', path: '/', methods: ['GET'], controller: () => HttpResponse.text('ok') },
    { name: 'user', path: '/users/:id', methods: ['GET'], controller: (req) => HttpResponse.json({ id: req.attributes.get('id') }) },
    hasJsonListener
      ? { name: 'echo', path: '/echo', methods: ['POST'], controller: (req) => HttpResponse.json(req.request.all()) }
      : { name: 'echo', path: '/echo', methods: ['POST'], controller: async (req) => HttpResponse.json(JSON.parse(await req.text())) },
  ];
}

function hasJsonRequestTransformer(app) {
  const listeners = app.kernel?.hooks?.['kernel.request'] ?? [];
  return listeners.some((l) => /JsonRequestTransformer/i.test(l.id ?? ''));
}

export function makeApp(mode = 'prod', extra = {}) {
  const debug = mode === 'debug';
  const options = {
    env: debug ? 'dev' : 'prod',
    debug,
    // logs off the hot path, also in debug mode (note: a 404 is logged at ERROR, as in Symfony 5)
    logLevel: getenv('BENCH_IRMS_LOG_LEVEL') || 'warning',
    ...extra,
  };
  const probe = createApp({ ...options, routes: [] });
  const viaListener = hasJsonRequestTransformer(probe);
  const app = createApp({ ...options, routes: echoRoutes(viaListener) });
  app.benchNote = viaListener ? 'echo=listener' : 'echo=controller-parses-body';
  return app;
}

/** A RequestSource with no headers and no body, for taking the app's answers once at start-up (floor-responses.mjs, page-404.mjs). */
export function bareSource(method, target) {
  return { method, target, scheme: 'http', fallbackHost: '127.0.0.1', remoteAddress: '127.0.0.1', protocol: 'HTTP/1.1', header: () => null, headers: () => [], body: () => null };
}
