/**
 * The `Deno.serve` handler of an irms-web app, batching under load.
 *
 * Deno 2 calls the handler from Rust once per request and drains the microtask queue after each call,
 * so a saturated server runs the application cold for every request, between two rounds of hyper's
 * work: irms-web's code cost five times more per `GET /` in the server than in a loop. When many
 * requests arrive in the same event-loop turn, the handler answers each with a pending promise and
 * computes them together in the turn's check phase (turn-batch.ts measures the load; with one request
 * per turn, requests are answered at once, inside the call). Measured at 50 connections (BENCHMARKS.md,
 * the 15:05 run): 23.0 → 17.3 µs of server CPU per `GET /`, 44.8 → 22.1 µs per JSON echo. The
 * response is the same either way; only the moment it is computed changes.
 */
import type { App } from '../app/create-app.ts';
import { denoConnectionInfo, type DenoServeInfo } from '../http/source.ts';
import { TurnBatcher } from './turn-batch.ts';

export type DenoServeHandler = ((request: Request, info: DenoServeInfo) => Response | Promise<Response>) & {
  /** Whether requests are being batched now (tests, diagnostics). */
  readonly batching: boolean;
};

export interface DenoServeHandlerOptions {
  /** Batch under load (default true); false computes every response inside Deno's call. */
  batch?: boolean;
}

/** One request's answer, handed back inside the call or through the promise made when it was queued. */
class Pending {
  done = false;
  failed = false;
  result: unknown = undefined;
  resolve: ((response: Response | Promise<Response>) => void) | null = null;
  reject: ((err: unknown) => void) | null = null;
  constructor(readonly info: DenoServeInfo) {}

  settle(response: Response | Promise<Response>): void {
    if (this.resolve) this.resolve(response);
    else {
      this.done = true;
      this.result = response;
    }
  }
  fail(err: unknown): void {
    if (this.reject) this.reject(err);
    else {
      this.done = this.failed = true;
      this.result = err;
    }
  }
}

/**
 * `Deno.serve(options, denoServeHandler(app))`. Errors go where Deno sends a handler's errors (its
 * `onError` option), whether the request was batched or not.
 */
export function denoServeHandler(app: Pick<App, 'respond'> | Pick<App, 'fetch'>, options: DenoServeHandlerOptions = {}): DenoServeHandler {
  // An irms-web app answers through `respond` (no promise when nothing was awaited); any other object
  // with a Fetch handler (`{ fetch }`, as Deno.serve takes) works too.
  const respond: App['respond'] = 'respond' in app ? app.respond : app.fetch;
  if (options.batch === false) {
    const direct = (request: Request, info: DenoServeInfo) => respond(request, denoConnectionInfo(info));
    return Object.defineProperty(direct, 'batching', { value: false }) as DenoServeHandler;
  }
  const compute = (request: Request, pending: Pending) => {
    try {
      pending.settle(respond(request, denoConnectionInfo(pending.info)));
    } catch (err) {
      pending.fail(err);
    }
  };
  const batcher = new TurnBatcher(compute, () => {});
  const handler = (request: Request, info: DenoServeInfo): Response | Promise<Response> => {
    const pending = new Pending(info);
    batcher.submit(request, pending);
    if (pending.done) {
      if (pending.failed) throw pending.result;
      return pending.result as Response | Promise<Response>;
    }
    return new Promise<Response>((resolve, reject) => {
      pending.resolve = resolve;
      pending.reject = reject;
    });
  };
  Object.defineProperty(handler, 'batching', { get: () => batcher.batching });
  return handler as DenoServeHandler;
}
