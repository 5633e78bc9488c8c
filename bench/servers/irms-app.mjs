// The irms-web bench app: the same four routes as every other server, built from dist/.
// mode: 'prod' (env prod, debug off) or 'debug' (env dev, debug on: every request profiled).
import { createApp, HttpResponse } from '../../dist/index.js';

export const benchRoutes = [
  { name: 'home', path: '/', methods: ['GET'], controller: () => HttpResponse.text('ok') },
  { name: 'user', path: '/users/:id', methods: ['GET'], controller: (req) => HttpResponse.json({ id: req.attributes.get('id') }) },
  // The JSON body arrives as request parameters (JsonRequestTransformerListener).
  { name: 'echo', path: '/echo', methods: ['POST'], controller: (req) => HttpResponse.json(req.request.all()) },
];

export function makeApp(mode = 'prod', extra = {}) {
  const debug = mode === 'debug';
  return createApp({
    env: debug ? 'dev' : 'prod',
    debug,
    logLevel: 'warning', // logs off the hot path, also in debug mode
    routes: benchRoutes,
    ...extra,
  });
}
