/**
 * The two `request` listeners: the native one (`createNodeListener`: handle, write, then run
 * kernel.terminate once the response is out) and `@hono/node-server`'s, kept for comparison.
 * `serve()` installs one of them; hosts with their own `http.Server` use them directly.
 */
import type http from 'node:http';
import { INTERNAL_ERROR_BODY, reportError, sendInternalError } from './failures.ts';
import { IncomingSource } from './incoming-source.ts';
import type { Handled, Listener, NodeApp, ServerState } from './types.ts';
import { cancelQuietly, isStream, writeResponse } from './write-response.ts';

function runTerminate(app: NodeApp, terminate: () => void): void {
  try {
    const result = terminate() as unknown;
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(undefined, (err: unknown) => reportError(app, 'kernel.terminate failed', err));
    }
  } catch (err) {
    reportError(app, 'kernel.terminate failed', err);
  }
}

const kTerminate = Symbol('irms.terminate');
type TerminableResponse = http.ServerResponse & { [kTerminate]?: () => void };

/** The native adapter as a plain `request` listener, for hosts that manage their own `http.Server`. */
export function createNodeListener(app: NodeApp, state: ServerState = { closing: false }): Listener {
  const fail = (res: http.ServerResponse, err: unknown) => {
    // A request body cut off by the client (or a request timeout) is not an application error.
    const clientGone = res.destroyed && (err as { code?: unknown } | null)?.code === 'ECONNRESET';
    if (!clientGone) reportError(app, 'Unhandled error while handling a request', err);
    sendInternalError(res);
  };
  // One shared 'close' listener (no per-request closure): runs the request's terminate once the
  // response has been written, or the client has gone.
  const onResponseClose = function (this: TerminableResponse) {
    const terminate = this[kTerminate];
    this[kTerminate] = undefined;
    if (terminate) runTerminate(app, terminate);
  };
  const respond = (req: http.IncomingMessage, res: http.ServerResponse, source: IncomingSource, handled: Handled) => {
    try {
      if (handled.terminate) {
        (res as TerminableResponse)[kTerminate] = handled.terminate;
        res.on('close', onResponseClose);
      }
      writeResponse(app, req, res, source, handled.response, state);
      // A client gone before the answer was ready (it left mid-body): 'close' has fired already, and
      // kernel.terminate (the profile, the app's own terminate listeners) must still run, as in Symfony.
      if (res.destroyed && (res as TerminableResponse)[kTerminate]) onResponseClose.call(res);
    } catch (err) {
      const body = handled?.response?.body;
      if (isStream(body) && !body.locked) cancelQuietly(body);
      fail(res, err);
    }
  };
  return function onRequest(req, res) {
    let source: IncomingSource;
    let result: Handled | Promise<Handled>;
    try {
      source = new IncomingSource(req);
      result = app.handle(source);
    } catch (err) {
      fail(res, err);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (handled) => respond(req, res, source, handled),
        (err: unknown) => fail(res, err),
      );
    } else {
      respond(req, res, source, result);
    }
  };
}

/** `@hono/node-server` in front of `app.fetch`, for comparison (dev dependency, loaded on demand). */
export async function createHonoListener(app: NodeApp): Promise<Listener> {
  const fetch = app.fetch;
  if (typeof fetch !== 'function') throw new TypeError('The hono adapter needs app.fetch.');
  const specifier = '@hono/node-server';
  const mod = (await import(specifier).catch((error: unknown) => {
    throw new Error(`The hono adapter needs the ${specifier} package, which irms-web does not install: npm i ${specifier}`, { cause: error });
  })) as {
    getRequestListener(
      fetch: (req: Request, env: { incoming: http.IncomingMessage }) => Response | Promise<Response>,
      options?: { errorHandler?: (err: unknown) => Response | Promise<Response> },
    ): Listener;
  };
  return mod.getRequestListener(
    (request, env) =>
      fetch(request, {
        remoteAddress: env.incoming.socket.remoteAddress ?? '',
        rawTarget: env.incoming.url,
        protocol: 'HTTP/' + env.incoming.httpVersion,
      }),
    {
      errorHandler: (err) => {
        reportError(app, 'Unhandled error while handling a request', err);
        return new Response(INTERNAL_ERROR_BODY, { status: 500, headers: { 'content-type': 'text/plain; charset=UTF-8' } });
      },
    },
  );
}
