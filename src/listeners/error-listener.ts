import type { KernelRequest } from '../http/request.ts';
import type { ControllerArgumentsEvent, ExceptionEvent, ResponseEvent } from '../kernel/events.ts';
import { exceptionChain, headersOf, HttpException, isError, statusOf } from '../kernel/exceptions.ts';
import { statusText } from '../http/status.ts';
import { listener, idleWhen, routeLacks } from '../kernel/hooks.ts';
import { renderError } from '../debug/error-renderer.ts';
import { messageOf, safeClassName } from '../debug/error-page/model.ts';
import { stackOf, throwLocation } from '../debug/stack.ts';

const REMOVE_CSP = '_remove_csp_headers';

/**
 * Symfony's ErrorListener: logs the uncaught error, renders the error response, and (debug) keeps the
 * error page free of a Content-Security-Policy the app set, so its inline styles and scripts work.
 */
export class ErrorListener {
  /**
   * @param excludedHttpCodes HTTP statuses whose uncaught exceptions are not logged — Monolog's
   * `excluded_http_codes` of Symfony's production recipe (404 and 405 there), so crawlers and
   * scanners do not flood the log.
   */
  constructor(
    private readonly debug: boolean,
    private readonly excludedHttpCodes: readonly number[] = [],
  ) {}

  /**
   * `Uncaught Exception <Class>: "<message>" at <file> line <n>` on channel `request`: ERROR for HTTP
   * errors below 500, CRITICAL otherwise. The file is the source-mapped, **absolute** path of the
   * throw site (symfony-reference §5.1), the same one the context's `exception`, the
   * `X-Debug-Exception-File` header and the error page's frames show.
   */
  readonly logKernelException = listener<'kernel.exception'>('ErrorListener::logKernelException', 'error logging', (event: ExceptionEvent) => {
    const error = event.throwable;
    const level = logLevelOf(error);
    const logger = event.request.logger;
    // An excluded status is kept out of the log stream only: the debug page's Logs tab and the profile
    // still list it, as Symfony's profiler does when Monolog's handler filters it out.
    const excluded = error instanceof HttpException && this.excludedHttpCodes.includes(error.statusCode);
    if (excluded ? logger.records === null : !logger.isEnabled(level)) return;
    const { file, line } = throwLocation(error);
    const message = `Uncaught Exception ${safeClassName(error)}: "${messageOf(error)}" at ${file} line ${line}`;
    if (excluded) logger.keep(level, 'request', message, { exception: error });
    else logger.log(level, 'request', message, { exception: error });
  });

  readonly onKernelException = listener<'kernel.exception'>('ErrorListener::onKernelException', 'error rendering', (event: ExceptionEvent) => {
    event.setResponse(renderError(event.throwable, event.request, this.debug));
    if (this.debug) event.request.attributes.set(REMOVE_CSP, true);
  });

  readonly removeCspHeader = listener<'kernel.response'>('ErrorListener::removeCspHeader', 'content-security-policy header removal for error pages', (event: ResponseEvent) => {
    if (this.debug && event.request.attributes.get(REMOVE_CSP) === true) event.response.headers.delete('content-security-policy');
  });

  /**
   * ErrorListener::onControllerArguments: when the request's `exception` attribute is an Error and that
   * same object is one of the controller's arguments (an error controller a listener gave it to), the
   * argument becomes its FlattenException, plain data a controller can render or serialize (Symfony
   * swaps an untyped parameter too; JavaScript has no types to tell). Any other `exception` value — a
   * route parameter named so (`/reports/:exception`), a default — returns at once, left as it is.
   */
  readonly onControllerArguments = idleWhen(
    listener<'kernel.controller_arguments'>('ErrorListener::onControllerArguments', 'error handler arguments', (event: ControllerArgumentsEvent) => {
      const exception = event.request.attributes.get('exception');
      if (!isError(exception)) return;
      const at = event.arguments_.indexOf(exception);
      if (at < 0) return;
      const args = [...event.arguments_];
      args[at] = flattenException(exception);
      event.setArguments(args);
    }),
    routeLacks(null, 'exception'),
  );
}

/** Symfony's ErrorListener::logException: CRITICAL, unless an HTTP error below 500 (ERROR). */
function logLevelOf(error: Error): 'error' | 'critical' {
  return error instanceof HttpException && error.statusCode < 500 ? 'error' : 'critical';
}

/**
 * An exception no kernel.exception listener answered (one stopped the hook before the ErrorListener):
 * Symfony's HttpKernel throws it on, and ErrorHandler::handleException logs it as
 * `Uncaught Exception: <message>`, CRITICAL, on channel `php`. Never throws.
 */
export function logUncaughtException(request: KernelRequest, error: Error): void {
  try {
    request.logger.log('critical', 'php', `Uncaught Exception: ${messageOf(error)}`, { exception: error });
  } catch {
    // nothing left to report to
  }
}

/**
 * ErrorListener's line for an error thrown while an error was being handled (in Symfony, by the error
 * controller's sub-request; here, by a kernel.exception listener, caught by the kernel):
 * `Exception thrown when handling an exception (<class>: <message> at <file> line <line>)`, at
 * logKernelException's level; `original` (the error being handled) in the context. Never throws:
 * logging must not stand between the client and an answer.
 */
export function logExceptionHandlingFailure(request: KernelRequest, failure: Error, original: Error | null): void {
  try {
    const { file, line } = throwLocation(failure);
    const message = `Exception thrown when handling an exception (${safeClassName(failure)}: ${messageOf(failure)} at ${file} line ${line})`;
    request.logger.log(logLevelOf(failure), 'request', message, { exception: failure, original });
  } catch {
    // nothing left to report to
  }
}

/** Symfony's FlattenException (ErrorHandler): an exception as plain data, its previous ones linked. */
export interface FlattenException {
  class: string;
  message: string;
  statusCode: number;
  statusText: string;
  headers: Record<string, string>;
  file: string;
  line: number;
  /** The stack as text (getTraceAsString). */
  traceAsString: string;
  previous: FlattenException | null;
}

/** FlattenException::createFromThrowable, over the whole chain (bounded, cycle-safe: exceptionChain). */
export function flattenException(error: Error): FlattenException {
  let previous: FlattenException | null = null;
  const chain = exceptionChain(error);
  for (let i = chain.length - 1; i >= 0; i--) {
    const e = chain[i]!;
    const status = statusOf(e);
    const { file, line } = throwLocation(e);
    previous = { class: safeClassName(e), message: messageOf(e), statusCode: status, statusText: statusText(status), headers: { ...headersOf(e) }, file, line, traceAsString: stackOf(e) ?? '', previous };
  }
  return previous!;
}
