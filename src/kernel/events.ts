import type { KernelRequest } from '../http/request.ts';
import { cancelQuietly, HttpResponse } from '../http/response.ts';
import { toError } from './exceptions.ts';

/** A controller: gets the request (route parameters in `request.attributes`) and the resolved arguments. */
export type Controller = (request: KernelRequest, ...args: any[]) => unknown;

/**
 * The response a listener gives `setResponse`, as the kernel's: a Fetch `Response` is wrapped, as a
 * controller's is, so that every hook (kernel.exception included) takes one. Anything else is the
 * listener's error, reported where it happened.
 */
function eventResponse(response: HttpResponse | Response): HttpResponse {
  const normalized = HttpResponse.from(response);
  if (normalized === null) throw new TypeError(`setResponse() takes an HttpResponse or a Fetch Response, got ${response === null ? 'null' : typeof response}.`);
  return normalized;
}

/** Hook names, exactly as the contract writes them. */
export const HOOKS = [
  'kernel.request',
  'kernel.controller',
  'kernel.controller_arguments',
  'kernel.view',
  'kernel.response',
  'kernel.finish_request',
  'kernel.exception',
  'kernel.terminate',
] as const;
export type HookName = (typeof HOOKS)[number];

/**
 * Symfony's Event: any listener may stop its hook, and the listeners after it are not called (the
 * kernel's next step still runs). Events that take an answer (request, view, exception) stop when one
 * is set, as their `setResponse` does in Symfony.
 */
export abstract class KernelEvent {
  abstract readonly request: KernelRequest;
  /**
   * Kept on the request (`stoppedEvent`), not on the event: the kernel reads it after every listener
   * call, and one KernelRequest shape makes that read monomorphic, where eight event classes made it
   * megamorphic (1.8 µs of a 9.5 µs `GET /` in-process).
   */
  stopPropagation(): void {
    this.request.stoppedEvent = this;
  }
  isPropagationStopped(): boolean {
    return this.request.stoppedEvent === this;
  }
  /** Symfony's KernelEvent::isMainRequest(), which most ported subscribers begin with. */
  isMainRequest(): boolean {
    return this.request.isMainRequest;
  }
}

/**
 * kernel.request: a listener may answer early, or end the request with an error; either stops the
 * remaining request listeners.
 */
export class RequestEvent extends KernelEvent {
  response: HttpResponse | null = null;
  failure: Error | null = null;
  constructor(readonly request: KernelRequest) {
    super();
  }
  setResponse(response: HttpResponse | Response): void {
    this.response = eventResponse(response);
    this.request.stoppedEvent = this;
  }
  /**
   * Ends the request with `error`, exactly as throwing it would (kernel.exception renders it), but
   * without a throw: V8 records the location of every throw, which is most of what a 404 costs.
   */
  fail(error: Error): void {
    this.failure = error;
  }
}

/** kernel.controller: listeners may replace the controller. */
export class ControllerEvent extends KernelEvent {
  constructor(readonly request: KernelRequest, public controller: Controller) {
    super();
  }
  setController(controller: Controller): void {
    this.controller = controller;
  }
}

/** kernel.controller_arguments: listeners may replace the controller or its arguments. */
export class ControllerArgumentsEvent extends KernelEvent {
  constructor(readonly request: KernelRequest, public controller: Controller, public arguments_: unknown[]) {
    super();
  }
  setController(controller: Controller): void {
    this.controller = controller;
  }
  setArguments(args: unknown[]): void {
    this.arguments_ = args;
  }
}

/** kernel.view: the controller returned something that is not a response; a listener turns it into one. */
export class ViewEvent extends KernelEvent {
  response: HttpResponse | null = null;
  constructor(readonly request: KernelRequest, public controllerResult: unknown) {
    super();
  }
  /** For the view listeners after this one (a listener wrapping or normalising the data); the kernel's error for no response names the controller's own result, as Symfony's does. */
  setControllerResult(controllerResult: unknown): void {
    this.controllerResult = controllerResult;
  }
  setResponse(response: HttpResponse | Response): void {
    this.response = eventResponse(response);
    this.request.stoppedEvent = this;
  }
}

/** kernel.response: listeners change the response in place or replace it. */
export class ResponseEvent extends KernelEvent {
  constructor(readonly request: KernelRequest, public response: HttpResponse) {
    super();
  }
  setResponse(response: HttpResponse | Response): void {
    const replaced = this.response;
    this.response = eventResponse(response);
    // No one reads the replaced body any more: a stream's source (a file, an upstream fetch's connection)
    // is let go now rather than when collected, as setContent does. One the new response carries on, or
    // one piped into it (locked), is left alone.
    if (replaced.isStreamed && replaced.body !== this.response.body) cancelQuietly(replaced.body as ReadableStream<Uint8Array>);
  }
}

export class FinishRequestEvent extends KernelEvent {
  constructor(readonly request: KernelRequest) {
    super();
  }
}

/** kernel.exception: listeners may replace the error and set a response (which stops the hook). */
export class ExceptionEvent extends KernelEvent {
  response: HttpResponse | null = null;
  #allowCustomResponseCode = false;
  #throwable: Error;
  constructor(readonly request: KernelRequest, throwable: Error) {
    super();
    this.#throwable = toError(throwable);
  }
  /**
   * The error being handled. What a listener sets is kept as `toError` makes it (a JavaScript listener
   * may set a string or null): the page, the `X-Debug-Exception` header and the log then describe the
   * same Error.
   */
  get throwable(): Error {
    return this.#throwable;
  }
  set throwable(error: Error) {
    this.#throwable = toError(error);
  }
  setThrowable(error: Error): void {
    this.throwable = error;
  }
  /**
   * Symfony's ExceptionEvent::allowCustomResponseCode(): the kernel keeps the response's status even when
   * it is no error status (a 200 a listener answers for a handled exception). A method, as a ported
   * subscriber calls it.
   */
  allowCustomResponseCode(): void {
    this.#allowCustomResponseCode = true;
  }
  isAllowingCustomResponseCode(): boolean {
    return this.#allowCustomResponseCode;
  }
  setResponse(response: HttpResponse | Response): void {
    this.response = eventResponse(response);
    this.request.stoppedEvent = this;
  }
}

/** kernel.terminate: after the host has the response. */
export class TerminateEvent extends KernelEvent {
  constructor(readonly request: KernelRequest, readonly response: HttpResponse) {
    super();
  }
}

export interface EventOf {
  'kernel.request': RequestEvent;
  'kernel.controller': ControllerEvent;
  'kernel.controller_arguments': ControllerArgumentsEvent;
  'kernel.view': ViewEvent;
  'kernel.response': ResponseEvent;
  'kernel.finish_request': FinishRequestEvent;
  'kernel.exception': ExceptionEvent;
  'kernel.terminate': TerminateEvent;
}
