import type { KernelRequest } from '../http/request.ts';
import { HttpResponse } from '../http/response.ts';
import {
  BadRequestHttpException,
  FrameworkError,
  HttpException,
  NotFoundHttpException,
  RequestError,
  toError,
} from './exceptions.ts';
import {
  ControllerArgumentsEvent,
  ControllerEvent,
  ExceptionEvent,
  FinishRequestEvent,
  RequestEvent,
  ResponseEvent,
  TerminateEvent,
  ViewEvent,
  type Controller,
  type EventOf,
  type HookName,
} from './events.ts';
import type { HookTable, Listener } from './hooks.ts';

/** The controller returned neither a response nor something a kernel.view listener could render. */
export class ControllerDoesNotReturnResponseException extends FrameworkError {
  static override readonly className = 'ControllerDoesNotReturnResponseException';
}

const now: () => number = typeof performance !== 'undefined' ? () => performance.now() : () => Date.now();

/**
 * Symfony's HttpKernel: request → controller → arguments → call → view → response → finish, and
 * exceptions → kernel.exception → response. Listener arrays are fixed per app; in debug mode every
 * listener call is traced (hook, listener, duration) and logged on the `event` channel.
 */
export class HttpKernel {
  private readonly dispatch: <H extends HookName>(hook: H, event: EventOf[H], stopOnResponse?: boolean) => Promise<void>;

  constructor(readonly hooks: HookTable, debug: boolean) {
    this.dispatch = debug ? this.dispatchTraced : this.dispatchPlain;
  }

  /** Always answers: errors become responses through kernel.exception, or a minimal 500 as a last resort. */
  async handle(request: KernelRequest): Promise<HttpResponse> {
    try {
      return await this.handleRaw(request);
    } catch (thrown) {
      return this.handleThrowable(asKernelError(thrown), request);
    }
  }

  /** kernel.terminate, after the host has the response. Errors are logged, never thrown. */
  async terminate(request: KernelRequest, response: HttpResponse): Promise<void> {
    try {
      await this.dispatch('kernel.terminate', new TerminateEvent(request, response));
    } catch (error) {
      request.logger.critical('request', 'Exception thrown in kernel.terminate: {message}', { message: toError(error).message, exception: error });
    }
  }

  private async handleRaw(request: KernelRequest): Promise<HttpResponse> {
    const requestEvent = new RequestEvent(request);
    await this.dispatch('kernel.request', requestEvent, true);
    if (requestEvent.response) return this.filterResponse(requestEvent.response, request);

    const controllerEvent = new ControllerEvent(request, resolveController(request));
    await this.dispatch('kernel.controller', controllerEvent);

    const argumentsEvent = new ControllerArgumentsEvent(request, controllerEvent.controller, [request]);
    await this.dispatch('kernel.controller_arguments', argumentsEvent);

    let result = argumentsEvent.controller(...(argumentsEvent.arguments_ as [KernelRequest]));
    if (result instanceof Promise) result = await result;

    let response = asResponse(result);
    if (!response) {
      const viewEvent = new ViewEvent(request, result);
      await this.dispatch('kernel.view', viewEvent);
      response = viewEvent.response ?? throwNoResponse(result);
    }
    return this.filterResponse(response, request);
  }

  private async filterResponse(response: HttpResponse, request: KernelRequest): Promise<HttpResponse> {
    const event = new ResponseEvent(request, response);
    await this.dispatch('kernel.response', event);
    await this.dispatch('kernel.finish_request', new FinishRequestEvent(request));
    return event.response;
  }

  private async handleThrowable(error: Error, request: KernelRequest): Promise<HttpResponse> {
    const event = new ExceptionEvent(request, error);
    try {
      await this.dispatch('kernel.exception', event, true);
    } catch (renderError) {
      return lastResortResponse(request, toError(renderError), error);
    }
    const response = event.response;
    if (!response) {
      await this.dispatch('kernel.finish_request', new FinishRequestEvent(request)).catch(() => {});
      return lastResortResponse(request, event.throwable, null);
    }
    if (!event.allowCustomResponseCode && response.status < 400 && !response.isRedirect()) {
      const thrown = event.throwable;
      if (thrown instanceof HttpException) {
        response.status = thrown.statusCode;
        for (const [k, v] of Object.entries(thrown.headers)) response.headers.set(k, v);
      } else {
        response.status = 500;
      }
    }
    try {
      return await this.filterResponse(response, request);
    } catch {
      return response;
    }
  }

  /**
   * Production dispatch. Most listeners are synchronous: while they are, no promise is created; the
   * first listener that returns one hands the rest of the hook to the async continuation.
   */
  private dispatchPlain<H extends HookName>(hook: H, event: EventOf[H], stopOnResponse = false): Promise<void> {
    const listeners = this.hooks[hook] as Listener<H>[];
    for (let i = 0; i < listeners.length; i++) {
      let pending;
      try {
        pending = listeners[i].call(event);
      } catch (error) {
        return Promise.reject(error);
      }
      if (pending !== undefined) return continueDispatch(listeners, i, pending, event, stopOnResponse);
      if (stopOnResponse && (event as { response: unknown }).response) break;
    }
    return SETTLED;
  }

  private async dispatchTraced<H extends HookName>(hook: H, event: EventOf[H], stopOnResponse = false): Promise<void> {
    const listeners = this.hooks[hook] as Listener<H>[];
    const request = event.request;
    const trace = request.trace;
    for (let i = 0; i < listeners.length; i++) {
      const listener = listeners[i];
      const start = now();
      try {
        const pending = listener.call(event);
        if (pending !== undefined) await pending;
      } finally {
        trace?.push({ hook, listener: listener.id, role: listener.role, startMs: start - request.startTime, durationMs: now() - start });
        request.logger.debug('event', 'Notified event "{event}" to listener "{listener}".', { event: hook, listener: listener.id });
      }
      if (stopOnResponse && (event as { response: unknown }).response) {
        if (i < listeners.length - 1) {
          request.logger.debug('event', 'Listener "{listener}" stopped propagation of the event "{event}".', { event: hook, listener: listener.id });
        }
        return;
      }
    }
  }
}

const SETTLED: Promise<void> = Promise.resolve();

async function continueDispatch<H extends HookName>(listeners: Listener<H>[], index: number, pending: Promise<void>, event: EventOf[H], stopOnResponse: boolean): Promise<void> {
  await pending;
  if (stopOnResponse && (event as { response: unknown }).response) return;
  for (let i = index + 1; i < listeners.length; i++) {
    const next = listeners[i].call(event);
    if (next !== undefined) await next;
    if (stopOnResponse && (event as { response: unknown }).response) return;
  }
}

/** Request errors become 400s with the same message; anything that is not an Error is wrapped. */
export function asKernelError(thrown: unknown): Error {
  if (thrown instanceof RequestError) return new BadRequestHttpException(thrown.message, thrown);
  return toError(thrown);
}

function resolveController(request: KernelRequest): Controller {
  const controller = request.attributes.get('_controller');
  if (typeof controller === 'function') return controller as Controller;
  throw new NotFoundHttpException(`Unable to find the controller for path "${request.pathInfo}". The route is wrongly configured.`);
}

function asResponse(result: unknown): HttpResponse | null {
  if (result instanceof HttpResponse) return result;
  if (typeof Response !== 'undefined' && result instanceof Response) return HttpResponse.fromFetch(result);
  return null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return `an object of type ${(value as object).constructor?.name ?? 'Object'}`;
  return `a ${typeof value}`;
}

function throwNoResponse(result: unknown): never {
  let message = `The controller must return a "Response" object but it returned ${describe(result)}.`;
  if (result === null || result === undefined) message += ' Did you forget to add a return statement somewhere in your controller?';
  throw new ControllerDoesNotReturnResponseException(message);
}

/**
 * When the exception hook itself fails or sets no response: a small plain 500 that reveals nothing,
 * so a request never hangs and no rejection escapes.
 */
function lastResortResponse(request: KernelRequest, error: Error, original: Error | null): HttpResponse {
  try {
    request.logger.critical('request', 'Exception thrown when handling an exception ({message})', { message: error.message, exception: error, original });
  } catch {
    // Logging must not stand between the client and an answer.
  }
  const status = error instanceof HttpException && !original ? error.statusCode : 500;
  return new HttpResponse(`${status === 500 ? 'Internal Server Error' : 'Error'}\n`, status, {
    'content-type': 'text/plain; charset=UTF-8',
    'cache-control': 'no-cache, private',
    'x-robots-tag': 'noindex',
  });
}
