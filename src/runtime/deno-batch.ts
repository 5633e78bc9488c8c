/**
 * The `Deno.serve` handler of an irms-web app, batching under load.
 *
 * Deno 2 calls the handler from Rust once per request and drains the microtask queue after each call,
 * so a saturated server runs the application cold for every request, between two rounds of hyper's
 * work: irms-web's code cost five times more per `GET /` in the server than in a loop. When many
 * requests arrive in the same event-loop turn, the handler answers each with a pending promise and
 * computes them together in the turn's check phase (turn-batch.ts measures the load; with one request
 * per turn, requests are answered at once, inside the call). Measured at 50 connections (bench/HISTORY.md,
 * the 15:05 run): 23.0 → 17.3 µs of server CPU per `GET /`, 44.8 → 22.1 µs per JSON echo. The
 * response is the same either way; only the moment it is computed changes. One client sees the moment:
 * one that half-closes after its request. Deno drops a pending answer when it reads the FIN, where it
 * sends one made inside the call, so such clients lose batched answers (README, "Decisions", Deno).
 */
import type { App } from '../app/create-app.ts';
import { knownOptions, shownValue as shown } from './option-names.ts';
import { denoConnectionInfo, type DenoServeInfo } from '../http/source.ts';
import { TurnBatcher } from './turn-batch.ts';

export type DenoServeHandler = ((request: Request, info: DenoServeInfo) => Response | Promise<Response>) & {
  /** Whether requests are being batched now (tests, diagnostics). */
  readonly batching: boolean;
};

export interface DenoServeHandlerOptions {
  /** Batch under load (default true); false computes every response inside Deno's call. */
  batch?: boolean;
  /**
   * Scheme of the connections the server accepts: say 'https' when `Deno.serve` has `cert` and `key`.
   * Default 'http', whatever the request URL says: Deno builds that URL from what the client wrote for
   * an absolute-form target (`GET https://…`) or an h2c `:scheme`, so a plain-HTTP client could
   * otherwise pass for a secure one.
   */
  scheme?: 'http' | 'https';
  /**
   * Time allowed to read a request body, ms: past it the client gets Node's answer to its
   * `requestTimeout`, 408 with `Connection: close` (`Deno.serve` has no timeout of its own). Default:
   * the app's `config.requestTimeoutMs` (REQUEST_TIMEOUT_MS), else Node's 300 000; 0 for none.
   */
  requestTimeout?: number;
}

/** What the handler serves: an irms-web app, or any object with a Fetch handler. */
type DenoApp = (Pick<App, 'respond'> | Pick<App, 'fetch'>) & {
  readonly config?: { readonly requestTimeoutMs?: number };
  readonly kernel?: { readonly hooks?: { readonly 'kernel.terminate'?: readonly unknown[] } };
};

/**
 * Whether the app runs kernel.terminate listeners: they run after Deno has the response, when Deno
 * 2.9 has closed the request and no longer answers its peer address (DenoConnectionInfo.retain). Asked
 * per request, as a listener may be inserted into the table after the handler was made.
 */
function terminates(app: DenoApp): boolean {
  // Optional all the way: another object with a Fetch handler may have a `kernel` of its own.
  return (app.kernel?.hooks?.['kernel.terminate']?.length ?? 0) > 0;
}

/** Node's limit on a request head (its default `--max-http-header-size`), over which it answers 431. */
const MAX_HEAD_BYTES = 16 * 1024;

/** The longest delay setTimeout takes (2^31-1 ms, about 24.8 days, as serve() clamps its shutdown deadline). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A deadline's delay as setTimeout takes it. A longer one (a requestTimeout of Infinity or past 24.8
 * days) fires at once on Deno and after 1 ms on Node (with a TimeoutOverflowWarning each time): the
 * check found the read still in time and armed the same delay again, a timer every millisecond for as
 * long as a body was read. Waiting 24.8 days and checking again keeps such a deadline as good as none.
 */
function timerDelay(ms: number): number {
  return Math.min(ms, MAX_TIMER_MS);
}

/**
 * The body reads under way and their deadlines, checked by one timer armed for the oldest read's
 * deadline (reads start in deadline order: one timeout for all), so under load it fires about once per
 * timeout. A timer per read (a setTimeout and its clearTimeout) costs ≈ 2.5 µs on Deno 2.9, a tenth of
 * a JSON POST. The watch is not free even so: on every JSON echo at 50 connections it cost a third of
 * the requests per second, p99 3 → 14 ms (bench/HISTORY.md, 2026-11-23), so only reads through the stream
 * are watched (FetchSource.readBody: chunked bodies and those over 64 KiB). A read that outlasts the deadline rejects with Node's own error for a request timeout, and
 * is itself left pending: Deno closes the connection once the body ends when the handler answered
 * before reading it all, where a cancelled body stream would let the connection carry another request.
 */
class BodyDeadlines {
  private readonly reads = new Set<{ expires: number; onTimeout: () => void; reject: (err: unknown) => void }>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly ms: number) {}

  watch(read: Promise<Uint8Array | null>, onTimeout: () => void): Promise<Uint8Array | null> {
    return new Promise((resolve, reject) => {
      const entry = { expires: performance.now() + this.ms, onTimeout, reject };
      this.reads.add(entry);
      this.timer ??= setTimeout(this.expire, timerDelay(this.ms));
      read.then(
        (body) => {
          this.reads.delete(entry);
          resolve(body);
        },
        (err: unknown) => {
          this.reads.delete(entry);
          reject(err);
        },
      );
    });
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    const now = performance.now();
    for (const entry of this.reads) {
      if (entry.expires > now) {
        // The oldest read still in time: the next check is at its deadline (not sooner than 100 ms).
        this.timer = setTimeout(this.expire, timerDelay(Math.max(100, entry.expires - now)));
        return;
      }
      this.reads.delete(entry);
      entry.onTimeout();
      entry.reject(Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }));
    }
  };
}

/**
 * What Node's server answers by itself to a request it refuses (src/runtime/node/client-errors.ts): the
 * status, no body, `Connection: close` (Deno writes the reason phrase, the same as Node's). When the
 * body was not read whole Deno adds a `Connection: close` of its own, which HTTP reads as `close, close`.
 */
function refusal(status: 408 | 431): Response {
  return new Response(null, { status, headers: { connection: 'close' } });
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

/** Every option's name: a name not here (`requestTimeoutMs`) would be ignored without a word. */
const OPTION_NAMES: { readonly [K in keyof DenoServeHandlerOptions]-?: true } = { batch: true, scheme: true, requestTimeout: true };

/**
 * Refuses what a JavaScript caller could pass by mistake, as serve() does for its own options: the
 * scheme only says `https` when it is exactly that, so `scheme: 'https:'` (a URL's `protocol`) served a
 * TLS server as plain HTTP, without a word (`http://` redirects, no `Secure` cookies); a misspelt
 * `requestTimeout` left the default deadline; `batch: 'no'` batched. Undefined counts as not given.
 */
function checkOptions(options: unknown): void {
  const { scheme, batch } = knownOptions('denoServeHandler', options, Object.keys(OPTION_NAMES));
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') throw new TypeError(`The denoServeHandler option "scheme" must be "http" or "https", got ${shown(scheme)}.`);
  if (batch !== undefined && typeof batch !== 'boolean') throw new TypeError(`The denoServeHandler option "batch" must be true or false, got ${shown(batch)}.`);
}

/**
 * `Deno.serve(options, denoServeHandler(app))`. Errors go where Deno sends a handler's errors (its
 * `onError` option), whether the request was batched or not.
 */
export function denoServeHandler(app: DenoApp, options: DenoServeHandlerOptions = {}): DenoServeHandler {
  checkOptions(options);
  // An irms-web app answers through `respond` (no promise when nothing was awaited); any other object
  // with a Fetch handler (`{ fetch }`, as Deno.serve takes) works too.
  const respond: App['respond'] = 'respond' in app ? app.respond : app.fetch;
  const requestTimeout = options.requestTimeout ?? app.config?.requestTimeoutMs ?? 300_000;
  if (typeof requestTimeout !== 'number' || !(requestTimeout >= 0)) {
    throw new RangeError(`The requestTimeout option must be a number of milliseconds >= 0, got ${String(requestTimeout)}.`);
  }
  const bodyDeadlines = requestTimeout > 0 ? new BodyDeadlines(requestTimeout) : undefined;
  const connection = { scheme: options.scheme ?? 'http', bodyDeadlines };
  const answer = (request: Request, info: DenoServeInfo): Response | Promise<Response> => {
    // Node refuses a head over 16 KiB; hyper takes far larger ones. Only the target is measured (a
    // string length): summing every header would cost each request an iteration, and hyper bounds
    // the headers itself (README, "Decisions").
    if (request.url.length > MAX_HEAD_BYTES) return refusal(431);
    const facts = denoConnectionInfo(info, connection);
    if (terminates(app)) facts.retain();
    const response = respond(request, facts);
    // Only a response that waited can have waited for a body that did not arrive in time: the kernel
    // answered its 400 for the body cut off, the client gets Node's 408.
    if (response instanceof Response || !bodyDeadlines) return response;
    return response.then((r) => (facts.timedOut ? refusal(408) : r));
  };
  if (options.batch === false) {
    return Object.defineProperty(answer, 'batching', { value: false }) as DenoServeHandler;
  }
  const compute = (request: Request, pending: Pending) => {
    try {
      pending.settle(answer(request, pending.info));
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
