import type { KernelRequest } from '../http/request.ts';
import { now } from './clock.ts';
import { cancelQuietly, HttpResponse } from '../http/response.ts';
import { messageOf } from '../debug/error-page/safe-json.ts';
import { logExceptionHandlingFailure, logUncaughtException } from '../listeners/error-listener.ts';
import {
  BadRequestHttpException,
  copyExceptionHeaders,
  FrameworkError,
  HttpException,
  NotFoundHttpException,
  RequestError,
  statusOf,
  toError,
} from './exceptions.ts';
import {
  ControllerArgumentsEvent,
  ControllerEvent,
  ExceptionEvent,
  FinishRequestEvent,
  KernelEvent,
  RequestEvent,
  ResponseEvent,
  TerminateEvent,
  ViewEvent,
  type Controller,
  type EventOf,
  type HookName,
} from './events.ts';
import { isThenable, withRequestListeners, type HookTable, type Listener } from './hooks.ts';

/** The controller returned neither a response nor something a kernel.view listener could render. */
export class ControllerDoesNotReturnResponseException extends FrameworkError {
  static override readonly className: string = 'ControllerDoesNotReturnResponseException';
}

/**
 * Requests answered on a path that skips kernel.finish_request, as Symfony's handleThrowable skips it (an
 * exception listener that throws, a response listener failing on the error page). Symfony's process
 * ends with the request; here a listener that follows requests in flight until they finish (the
 * LocaleAwareListener) learns from this set that such a request never will.
 */
export const unfinishedRequests = new WeakSet<KernelRequest>();

/** A value now, or later when a listener or the controller was asynchronous. */
export type MaybePromise<T> = T | Promise<T>;

/** What a dispatch returns: nothing when every listener was synchronous, else the rest of the hook. */
type Pending = Promise<void> | undefined;

/** The controller hooks' listeners for one request, when they differ from the table's (production). */
export type ControllerHooks = Pick<HookTable, 'kernel.controller' | 'kernel.controller_arguments'>;

/** Production: the controller hooks of a request's route without the listeners idle for it. */
export type ControllerPlan = (request: KernelRequest) => ControllerHooks | undefined;

/**
 * Symfony's HttpKernel: request → controller → arguments → call → view → response → finish, and
 * exceptions → kernel.exception → response. Listener arrays are fixed per app; in debug mode every
 * listener call is traced (hook, listener, duration) and logged on the `event` channel.
 *
 * Each step runs synchronously while the listeners and the controller are synchronous and continues
 * through a promise only from the first one that is not: a request served by synchronous code
 * creates no promise at all (the Node adapter then writes the response in the same tick).
 */
export class HttpKernel {
  private readonly dispatch: <H extends HookName>(hook: H, event: EventOf[H], stopOnResponse?: boolean, listeners?: Listener<H>[], from?: number) => Pending;

  /**
   * @param plan production only: per-route controller hooks without their idle listeners
   * (app/controller-plan.ts); debug mode calls every listener of the table, as the contract lists them.
   * @param finishers synchronous kernel.response listeners (the app's ResponseListener and robots
   * listener) run on a response that skips kernel.response or fails in it — the last-resort 500, an
   * error response a kernel.response listener failed on — so that it still gets CONTRACT §9's defaults.
   */
  constructor(
    readonly hooks: HookTable,
    debug: boolean,
    readonly plan: ControllerPlan | null = null,
    private readonly finishers: readonly Listener<'kernel.response'>[] = [],
  ) {
    this.dispatch = debug ? this.dispatchTraced : this.dispatchPlain;
  }

  /**
   * Always answers, never throws or rejects, whatever a listener or the controller throws: errors
   * become responses through kernel.exception, or a minimal 500 as a last resort.
   */
  handle(request: KernelRequest): MaybePromise<HttpResponse> {
    try {
      const response = this.handleRaw(request);
      if (response instanceof Promise) return response.catch((thrown: unknown) => this.handleThrown(thrown, request));
      return response;
    } catch (thrown) {
      return this.handleThrown(thrown, request);
    }
  }

  /** kernel.terminate, after the host has the response. Errors are logged; the promise never rejects. */
  async terminate(request: KernelRequest, response: HttpResponse): Promise<void> {
    try {
      await this.dispatch('kernel.terminate', new TerminateEvent(request, response));
    } catch (thrown) {
      try {
        // messageOf: the error's message getter, or a Proxy's trap, may throw too. A thrown string or
        // object is described as kernel.exception describes it (its message was `undefined`).
        const error = toError(thrown);
        request.logger.critical('request', 'Exception thrown in kernel.terminate: {message}', { message: messageOf(error), exception: error });
      } catch {
        // nothing left to report to: the response is out already
      }
    }
  }

  private handleRaw(request: KernelRequest): MaybePromise<HttpResponse> {
    const event = new RequestEvent(request);
    const pending = this.dispatch('kernel.request', event, true);
    if (pending) return pending.then(() => this.afterRequest(request, event));
    return this.afterRequest(request, event);
  }

  private afterRequest(request: KernelRequest, requestEvent: RequestEvent): MaybePromise<HttpResponse> {
    if (requestEvent.failure) return this.handleThrown(requestEvent.failure, request);
    if (requestEvent.response) return this.filterAnswer(requestEvent.response, request);
    const event = new ControllerEvent(request, resolveController(request));
    const planned = this.plan?.(request);
    const pending = this.dispatch('kernel.controller', event, false, planned?.['kernel.controller']);
    if (pending) return pending.then(() => this.resolveArguments(request, event, planned));
    return this.resolveArguments(request, event, planned);
  }

  private resolveArguments(request: KernelRequest, controllerEvent: ControllerEvent, planned: ControllerHooks | undefined): MaybePromise<HttpResponse> {
    const event = new ControllerArgumentsEvent(request, controllerEvent.controller, [request]);
    const pending = this.dispatch('kernel.controller_arguments', event, false, planned?.['kernel.controller_arguments']);
    if (pending) return pending.then(() => this.callController(request, event));
    return this.callController(request, event);
  }

  private callController(request: KernelRequest, event: ControllerArgumentsEvent): MaybePromise<HttpResponse> {
    const result = event.controller(...(event.arguments_ as [KernelRequest]));
    // Any thenable is waited for, as `await` would: a promise of another realm (node:vm) or library
    // (Bluebird, a query builder) is no `instanceof Promise`, and was rendered as data, its rejection unheard.
    if (isThenable(result)) return Promise.resolve(result).then((value: unknown) => this.handleResult(request, value));
    return this.handleResult(request, result);
  }

  /** A response goes on; anything else goes through kernel.view first. */
  private handleResult(request: KernelRequest, result: unknown): MaybePromise<HttpResponse> {
    const response = HttpResponse.from(result);
    if (response) return this.filterAnswer(response, request);
    const event = new ViewEvent(request, result);
    // Stops at the first response, as ViewEvent (a RequestEvent) stops propagation in setResponse():
    // a later view listener (a catch-all serializer) must not replace the response of the one before.
    const pending = this.dispatch('kernel.view', event, true);
    if (pending) return pending.then(() => this.filterAnswer(event.response ?? throwNoResponse(result), request));
    return this.filterAnswer(event.response ?? throwNoResponse(result), request);
  }

  /**
   * filterResponse for the request's own answer. When kernel.response or kernel.finish_request fails, the
   * error page replaces the answer, whose stream (a file, an upstream body) no one will read: it is
   * cancelled now rather than when collected. The error path does not come here: its response is sent
   * as it is when a response listener fails on it (afterException).
   */
  private filterAnswer(response: HttpResponse, request: KernelRequest): MaybePromise<HttpResponse> {
    if (!response.isStreamed) return this.filterResponse(response, request);
    try {
      const filtered = this.filterResponse(response, request);
      return filtered instanceof Promise ? filtered.catch((error: unknown) => dropAnswer(response, error)) : filtered;
    } catch (error) {
      return dropAnswer(response, error);
    }
  }

  private filterResponse(response: HttpResponse, request: KernelRequest): MaybePromise<HttpResponse> {
    const event = new ResponseEvent(request, response);
    const pending = this.dispatch('kernel.response', event);
    if (pending) return pending.then(() => this.finishRequest(event.response, request));
    return this.finishRequest(event.response, request);
  }

  private finishRequest(response: HttpResponse, request: KernelRequest): MaybePromise<HttpResponse> {
    response.headers.ensureCacheControl();
    const pending = this.dispatch('kernel.finish_request', new FinishRequestEvent(request));
    return pending ? pending.then(() => response) : response;
  }

  /**
   * kernel.exception for anything thrown. What its listeners throw in turn (a hostile Proxy, a getter
   * that throws, a response that is no response) ends in the last resort instead of leaving handle().
   */
  private handleThrown(thrown: unknown, request: KernelRequest): MaybePromise<HttpResponse> {
    let error: Error | null = null;
    try {
      error = asKernelError(thrown);
      const response = this.handleThrowable(error, request);
      return response instanceof Promise ? response.catch((failure: unknown) => this.lastResort(request, toError(failure), error)) : response;
    } catch (failure) {
      return this.lastResort(request, toError(failure), error);
    }
  }

  private handleThrowable(error: Error, request: KernelRequest): MaybePromise<HttpResponse> {
    const event = new ExceptionEvent(request, error);
    const added = request.exceptionListeners;
    const pending = this.dispatch('kernel.exception', event, true, added === null ? undefined : withRequestListeners(this.hooks['kernel.exception'], added));
    if (pending) return pending.then(() => this.afterException(request, event));
    return this.afterException(request, event);
  }

  private afterException(request: KernelRequest, event: ExceptionEvent): MaybePromise<HttpResponse> {
    const response = event.response;
    if (!response) return this.finishWithoutResponse(request, event.throwable);
    if (!event.isAllowingCustomResponseCode() && response.status < 400 && !response.isRedirect()) {
      const thrown = event.throwable;
      if (thrown instanceof HttpException) {
        response.status = thrown.statusCode;
        copyExceptionHeaders(thrown, response.headers);
      } else {
        response.status = 500;
      }
    }
    // A response listener failing on the error response: the error response goes out as it is
    // (Symfony's handleThrowable), with the defaults kernel.response did not give it.
    try {
      const filtered = this.filterResponse(response, request);
      return filtered instanceof Promise ? filtered.catch(() => this.finishUnfiltered(request, response)) : filtered;
    } catch {
      return this.finishUnfiltered(request, response);
    }
  }

  /** No listener rendered the error: kernel.finish_request still runs (its errors ignored), then the last resort. */
  private finishWithoutResponse(request: KernelRequest, thrown: Error): MaybePromise<HttpResponse> {
    const answer = () => this.lastResort(request, thrown, null, true);
    try {
      const pending = this.dispatch('kernel.finish_request', new FinishRequestEvent(request));
      if (pending) return pending.then(answer, answer);
    } catch {
      // ignored, as above
    }
    return answer();
  }

  /**
   * When the exception hook itself fails or sets no response: a small plain 500 that reveals nothing
   * (the HTTP status of an unrendered HTTP exception), so a request never hangs and no rejection escapes.
   * `unanswered`: nothing failed, no listener set a response; the error is then logged as uncaught.
   */
  private lastResort(request: KernelRequest, error: Error, original: Error | null, unanswered = false): HttpResponse {
    if (unanswered) logUncaughtException(request, error);
    else logExceptionHandlingFailure(request, error, original);
    let status = 500;
    try {
      if (!original) status = statusOf(error);
    } catch {
      // an unreadable status: 500
    }
    const response = new HttpResponse(`${status === 500 ? 'Internal Server Error' : 'Error'}\n`, status, {
      'content-type': 'text/plain; charset=UTF-8',
      'cache-control': 'no-cache, private',
    });
    // An unrendered HTTP exception keeps its headers with its status (`Allow`, `WWW-Authenticate`,
    // `Retry-After`), as Symfony's ErrorHandler::renderException sends the uncaught exception's headers.
    if (!original) copyExceptionHeaders(error, response.headers);
    return this.finishUnfiltered(request, response);
  }

  /** The finishers on a response that did not pass kernel.response whole; each on its own, none may cost the answer. */
  private finishUnfiltered(request: KernelRequest, response: HttpResponse): HttpResponse {
    unfinishedRequests.add(request);
    const event = new ResponseEvent(request, response);
    for (const finisher of this.finishers) {
      try {
        void finisher.call(event);
      } catch {
        // the response goes out without this finisher's part
      }
    }
    return response;
  }

  /**
   * Production dispatch: listeners are called in order and may throw (the caller turns that into
   * kernel.exception). The first listener that returns a promise hands the rest of the hook to that
   * promise; until then nothing is allocated.
   */
  private dispatchPlain<H extends HookName>(hook: H, event: EventOf[H], stopOnResponse = false, listeners = this.hooks[hook] as Listener<H>[], from = 0): Pending {
    // Read once per hook: `event.request` is read across eight event classes, the request's field across one.
    const request = event.request;
    for (let i = from; i < listeners.length; i++) {
      const pending = listeners[i].call(event);
      if (pending != null && typeof (pending as Partial<Promise<void>>).then === 'function') {
        // A native promise from here on (see ownPromise): every step after this one tests `instanceof Promise`.
        return ownPromise(pending).then(() => (halts(event, request, stopOnResponse) ? undefined : this.dispatchPlain(hook, event, stopOnResponse, listeners, i + 1)));
      }
      if (halts(event, request, stopOnResponse)) break;
    }
    return undefined;
  }

  /**
   * Debug dispatch: the same, and every call traced (hook, listener, duration) for the profiler. The
   * hook's `event` lines are written once it is over, whether it ends, stops or fails, as Symfony's
   * TraceableEventDispatcher writes them after the dispatch: a line a listener logs itself ("Matched
   * route") comes before them, and no log write falls inside a traced call. One clock read per call:
   * the end of a call starts the next one.
   */
  private dispatchTraced<H extends HookName>(hook: H, event: EventOf[H], stopOnResponse = false, listeners = this.hooks[hook] as Listener<H>[], from = 0): Pending {
    const request = event.request;
    let start = now();
    for (let i = from; i < listeners.length; i++) {
      const listener = listeners[i];
      let pending: void | Promise<void> = undefined;
      try {
        const result = listener.call(event);
        // Only a promise is waited for: a listener written as `(e) => map.set(…)` returns a value, not work.
        if (result != null && typeof (result as Partial<Promise<void>>).then === 'function') pending = result;
      } catch (error) {
        traced(event, hook, listener, start);
        logNotified(request, hook, listeners, i, false);
        throw error;
      }
      if (pending !== undefined) {
        return ownPromise(pending).then(
          () => {
            traced(event, hook, listener, start);
            const halt = haltOf(event, request, stopOnResponse);
            if (halt === null) return this.dispatchTraced(hook, event, stopOnResponse, listeners, i + 1);
            logNotified(request, hook, listeners, i, halt === 'stopped');
            return undefined;
          },
          (error: unknown) => {
            traced(event, hook, listener, start);
            logNotified(request, hook, listeners, i, false);
            throw error;
          },
        );
      }
      const end = traced(event, hook, listener, start);
      const halt = haltOf(event, request, stopOnResponse);
      if (halt !== null) {
        logNotified(request, hook, listeners, i, halt === 'stopped');
        return undefined;
      }
      start = end;
    }
    logNotified(request, hook, listeners, listeners.length - 1, false);
    return undefined;
  }
}

/** Records a finished listener call in the request's trace (profiler); returns the call's end. */
function traced<H extends HookName>(event: EventOf[H], hook: H, listener: Listener<H>, start: number): number {
  const end = now();
  const request = event.request;
  request.trace?.push({ hook, listener: listener.id, role: listener.role, startMs: start - request.startTime, durationMs: end - start });
  return end;
}

/**
 * Why a hook ends before its last listener (debug mode): a listener stopped it (an answer or
 * `stopPropagation()`), or (kernel.request) failed the request, which is no stop; null to go on.
 */
function haltOf(event: KernelEvent, request: KernelRequest, stopOnResponse: boolean): 'stopped' | 'failed' | null {
  if (stopOnResponse && (event as { failure?: unknown }).failure) return 'failed';
  if (request.stoppedEvent === event || (stopOnResponse && (event as { response?: unknown }).response)) return 'stopped';
  return null;
}

/**
 * The `event` lines of a finished hook, in the order of Symfony's TraceableEventDispatcher::postProcess:
 * "Notified" for each listener called (the first `last + 1`, a failing one included), and when the one at
 * `last` stopped the hook, "stopped propagation", then "was not called" for each listener after it.
 */
function logNotified<H extends HookName>(request: KernelRequest, hook: H, listeners: Listener<H>[], last: number, stopped: boolean): void {
  const logger = request.logger;
  if (!logger.wouldLog('debug', 'event')) return;
  for (let i = 0; i <= last; i++) {
    logger.debug('event', 'Notified event "{event}" to listener "{listener}".', { event: hook, listener: listeners[i].id });
  }
  if (!stopped) return;
  logger.debug('event', 'Listener "{listener}" stopped propagation of the event "{event}".', { event: hook, listener: listeners[last].id });
  for (let i = last + 1; i < listeners.length; i++) {
    logger.debug('event', 'Listener "{listener}" was not called for event "{event}".', { event: hook, listener: listeners[i].id });
  }
}

/**
 * A listener's thenable as this realm's Promise (a native one is returned as it is). The kernel's later
 * steps and the app tell a pending answer from a response with `instanceof Promise`: another realm's
 * promise or a library's thenable went out as the response (every request a 500, `toFetch is not a
 * function`) and its rejection was never caught.
 */
function ownPromise(pending: PromiseLike<void>): Promise<void> {
  return Promise.resolve(pending);
}

/**
 * Whether the listeners after this one are skipped: one stopped propagation, or, on a hook that takes
 * an answer, one answered (a response assigned without setResponse too) or (kernel.request) failed the request.
 */
function halts(event: KernelEvent, request: KernelRequest, stopOnResponse: boolean): boolean {
  return request.stoppedEvent === event || (stopOnResponse && !!((event as { response?: unknown }).response || (event as { failure?: unknown }).failure));
}

/** Request errors become 400s with the same message; anything that is not an Error is wrapped. */
export function asKernelError(thrown: unknown): Error {
  const error = toError(thrown);
  return error instanceof RequestError ? new BadRequestHttpException(messageOf(error), error) : error;
}

function resolveController(request: KernelRequest): Controller {
  const controller = request.attributes.get('_controller');
  if (typeof controller === 'function') return controller as Controller;
  throw new NotFoundHttpException(`Unable to find the controller for path "${request.pathInfo}". The route is wrongly configured.`);
}

/** Symfony's HttpKernel::varToString cuts strings and array keys at this many characters. */
const VAR_TO_STRING_MAX = 255;

/**
 * Symfony's HttpKernel::varToString, for the "must return a Response" message: `a string ("…")`,
 * `a number (42)`, `a boolean value (false)`, `an array ([0 => ..., 1 => ...])`, `an object of type X`,
 * `null`; JavaScript's own `undefined`, and `a function` / `a symbol`, as they are.
 */
function varToString(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) {
    let keys = '';
    for (let i = 0; i < value.length && keys.length < VAR_TO_STRING_MAX; i++) keys += `${i === 0 ? '' : ', '}${i} => ...`;
    return `an array ([${firstChars(keys, VAR_TO_STRING_MAX)}])`;
  }
  if (typeof value === 'object') return `an object of type ${(value as object).constructor?.name ?? 'Object'}`;
  if (typeof value === 'boolean') return `a boolean value (${value})`;
  if (typeof value === 'string') {
    const shown = firstChars(value, VAR_TO_STRING_MAX);
    return `a string ("${shown}${shown.length < value.length ? '...' : ''}")`;
  }
  if (typeof value === 'number' || typeof value === 'bigint') return `a number (${value})`;
  return `a ${typeof value}`;
}

/** The first `count` characters (code points, as PHP's mb_substr counts them) of `text`. */
function firstChars(text: string, count: number): string {
  return Array.from(text.slice(0, 2 * count)).slice(0, count).join('');
}

function throwNoResponse(result: unknown): never {
  let message = `The controller must return a "Response" object but it returned ${varToString(result)}.`;
  if (result === null || result === undefined) message += ' Did you forget to add a return statement somewhere in your controller?';
  throw new ControllerDoesNotReturnResponseException(message);
}


/** Cancels a dropped answer's stream (unless something reads it already), then fails as before. */
function dropAnswer(response: HttpResponse, error: unknown): never {
  cancelQuietly(response.body as ReadableStream<Uint8Array>);
  throw error;
}
