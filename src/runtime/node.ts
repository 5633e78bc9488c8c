/**
 * The Node host: `serve(app)` runs an application on `node:http`.
 *
 * Two adapters:
 * - `native` (default, the faster one — docs/node-adapter.md): the request is read straight from the
 *   `IncomingMessage` through a lazy `RequestSource` (nothing parsed or copied until the kernel asks,
 *   no Fetch `Request`), and the kernel's `HttpResponse` is written straight to the `ServerResponse`
 *   (no Fetch `Response`). The request target is `req.url` exactly as received: `//evil.com/x` stays a
 *   path and is never resolved against a base. Under load, the responses of one event-loop turn are
 *   computed together after every ready socket has been read (node-batch.ts; `batch: false` opts out).
 * - `hono`: `@hono/node-server`'s `getRequestListener(app.fetch)`, kept for comparison. It is loaded
 *   on demand (it is a dev dependency) and, by that package's default, replaces the global
 *   `Request`/`Response` with its lightweight classes.
 *
 * Robustness (CONTRACT §10): every failure ends in a response or a closed socket, never in a crash or
 * an unhandled rejection; parse errors get 400/408/431 (405 with `Allow` for a method Node's parser
 * refuses: lower-case or unknown) and a close; header, request and keep-alive
 * timeouts are configurable; `close()` (and SIGTERM/SIGINT) drains in-flight requests within a deadline.
 *
 * This file is the `irms-web/node` entry (build.mjs, package.json `exports`) and only re-exports; the
 * adapter lives in ./node/: types.ts (what it needs from an app), incoming-source.ts and
 * incoming-body.ts (the request side), write-response.ts (the response side), listener.ts (the native
 * and hono `request` listeners), client-errors.ts (what the server answers by itself), failures.ts
 * (reporting, the last-resort 500), serve.ts (the server, its options and its shutdown).
 */
export { batchUnderLoad, type BatchingListener } from './node-batch.ts';
export type { Handled, NodeApp, NodeResponse } from './node/types.ts';
export { createHonoListener, createNodeListener } from './node/listener.ts';
export { serve, type NodeAdapter, type NodeServer, type ServeOptions } from './node/serve.ts';
