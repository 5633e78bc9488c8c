/**
 * Exception classes named after their Symfony counterparts, so messages, logs and the error page read
 * the same as in the application this service reproduces. `className` is what pages and logs print:
 * esbuild may rename classes when bundling, so the name is declared, not read from the constructor.
 */

/**
 * Base for every error this framework throws; `previous` is the Symfony name for `cause`.
 *
 * With `Error.stackTraceLimit` at 0 — set by a caller that will never read the stack (routing in
 * production when 404/405 are not logged) or that gives it one itself (routing in debug mode, through
 * debug/stack.ts `captureStack`) — the error is built without the Error constructor:
 * V8's costs about 0.5 µs even then, Deno's about 10 µs deep inside a request, for a stack that would
 * be empty anyway. Such an error is an `instanceof` its class and of Error, with own `message`,
 * `cause`, `stack` (`Name: message`, what an empty trace prints) and `previous`; they are enumerable
 * there, and `util.types.isNativeError` is false.
 */
export class FrameworkError extends Error {
  static readonly className: string = 'FrameworkError';
  readonly previous: unknown;
  constructor(message = '', previous?: unknown) {
    const limit = Error.stackTraceLimit;
    if (limit === 0) return stacklessError(new.target.prototype as FrameworkError, message, previous);
    // Capture the stack once, from the throw site: V8 would otherwise record one `new X` frame per
    // constructor of the class chain.
    const capture = (Error as { captureStackTrace?: (target: object, ctor?: unknown) => void }).captureStackTrace;
    if (capture) Error.stackTraceLimit = 0;
    super(message, previous === undefined ? undefined : { cause: previous });
    if (capture) {
      Error.stackTraceLimit = limit;
      capture(this, new.target);
    }
    this.previous = previous;
  }
  get className(): string {
    return (this.constructor as typeof FrameworkError).className;
  }
}

function stacklessError(prototype: FrameworkError, message: string, previous: unknown): FrameworkError {
  // Plain assignments: Object.defineProperty (non-enumerable, as on a native error) costs ten times more.
  const error = Object.create(prototype) as { -readonly [K in keyof FrameworkError]: FrameworkError[K] };
  error.message = message;
  error.stack = message ? `${error.name}: ${message}` : error.name;
  if (previous !== undefined) error.cause = previous;
  error.previous = previous;
  return error;
}

/** An error that carries an HTTP status and headers (Symfony's HttpExceptionInterface). */
export class HttpException extends FrameworkError {
  static override readonly className: string = 'HttpException';
  readonly statusCode: number;
  readonly headers: Record<string, string>;
  constructor(statusCode: number, message = '', previous?: unknown, headers: Record<string, string> = {}) {
    super(message, previous);
    this.statusCode = statusCode;
    this.headers = headers;
  }
}

export class BadRequestHttpException extends HttpException {
  static override readonly className = 'BadRequestHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(400, message, previous, headers);
  }
}

export class UnauthorizedHttpException extends HttpException {
  static override readonly className = 'UnauthorizedHttpException';
  constructor(challenge: string, message = '', previous?: unknown) {
    super(401, message, previous, challenge ? { 'WWW-Authenticate': challenge } : {});
  }
}

export class AccessDeniedHttpException extends HttpException {
  static override readonly className = 'AccessDeniedHttpException';
  constructor(message = 'Access Denied.', previous?: unknown) {
    super(403, message, previous);
  }
}

export class NotFoundHttpException extends HttpException {
  static override readonly className = 'NotFoundHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(404, message, previous, headers);
  }
}

export class MethodNotAllowedHttpException extends HttpException {
  static override readonly className = 'MethodNotAllowedHttpException';
  readonly allowedMethods: string[];
  constructor(allowed: string[], message = '', previous?: unknown) {
    const upper = allowed.map((m) => m.toUpperCase());
    super(405, message, previous, { Allow: upper.join(', ') });
    this.allowedMethods = upper;
  }
}

export class PayloadTooLargeHttpException extends HttpException {
  static override readonly className = 'PayloadTooLargeHttpException';
  constructor(message = 'Request body is too large.', previous?: unknown) {
    super(413, message, previous);
  }
}

export class NotImplementedHttpException extends HttpException {
  static override readonly className = 'NotImplementedHttpException';
  constructor(message = '', previous?: unknown) {
    super(501, message, previous);
  }
}

/**
 * Request errors (Symfony's RequestExceptionInterface): malformed input detected while reading the
 * request. The kernel turns any of them into a BadRequestHttpException with the same message.
 */
export class RequestError extends FrameworkError {
  static override readonly className: string = 'RequestError';
}
export class SuspiciousOperationException extends RequestError {
  static override readonly className = 'SuspiciousOperationException';
}
export class ConflictingHeadersException extends RequestError {
  static override readonly className = 'ConflictingHeadersException';
}
export class BadRequestException extends RequestError {
  static override readonly className = 'BadRequestException';
}
export class JsonException extends RequestError {
  static override readonly className = 'JsonException';
}
export class SessionNotFoundException extends RequestError {
  static override readonly className = 'SessionNotFoundException';
}

/** Routing outcomes (Symfony's Routing\Exception namespace). */
export class ResourceNotFoundException extends FrameworkError {
  static override readonly className: string = 'ResourceNotFoundException';
}
/** Thrown for `/` when nothing at all is configured there; drives the debug welcome page. */
export class NoConfigurationException extends ResourceNotFoundException {
  static override readonly className = 'NoConfigurationException';
}
/** URL generation (Symfony's UrlGenerator): an unknown route name. */
export class RouteNotFoundException extends FrameworkError {
  static override readonly className = 'RouteNotFoundException';
}
/** URL generation: a path variable without a value. */
export class MissingMandatoryParametersException extends FrameworkError {
  static override readonly className = 'MissingMandatoryParametersException';
}
/** URL generation: a value its requirement refuses. */
export class InvalidParameterException extends FrameworkError {
  static override readonly className = 'InvalidParameterException';
}
export class MethodNotAllowedException extends FrameworkError {
  static override readonly className = 'MethodNotAllowedException';
  readonly allowedMethods: string[];
  constructor(allowedMethods: string[], message = '', previous?: unknown) {
    super(message, previous);
    this.allowedMethods = allowedMethods.map((m) => m.toUpperCase());
  }
}

/** Security (Symfony's Security\Core\Exception namespace). */
export class AuthenticationException extends FrameworkError {
  static override readonly className: string = 'AuthenticationException';
}
/** An AccessDeniedException for a member who is not fully authenticated (anonymous, remember-me). */
export class InsufficientAuthenticationException extends AuthenticationException {
  static override readonly className = 'InsufficientAuthenticationException';
}
export class AccessDeniedException extends FrameworkError {
  static override readonly className = 'AccessDeniedException';
  constructor(message = 'Access Denied.', previous?: unknown) {
    super(message, previous);
  }
}

/**
 * A thrown value that is not an Error (a string, a number, an object): wrapped so that the error page,
 * logs and profiler always have a class, a message and a stack, and the original value is kept.
 */
export class NonErrorThrown extends FrameworkError {
  static override readonly className = 'NonErrorThrown';
  readonly value: unknown;
  constructor(value: unknown) {
    super(describeThrown(value));
    this.value = value;
  }
}

function describeThrown(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return `Non-error value thrown: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`;
  } catch {
    return `Non-error value thrown: ${Object.prototype.toString.call(value)}`;
  }
}

/** Every throw becomes an Error; non-Errors are wrapped, never lost. */
export function toError(value: unknown): Error {
  return value instanceof Error ? value : new NonErrorThrown(value);
}

/** The class name pages and logs show for an error. */
export function classNameOf(error: unknown): string {
  if (error instanceof FrameworkError) return error.className;
  if (error instanceof Error) return error.name && error.name !== 'Error' ? error.name : error.constructor?.name || 'Error';
  return typeof error;
}

/** The cause chain, outermost first, cycle-safe and bounded. */
export function exceptionChain(error: unknown, limit = 32): Error[] {
  const chain: Error[] = [];
  let current: unknown = error;
  while (current instanceof Error && chain.length < limit && !chain.includes(current)) {
    chain.push(current);
    current = current instanceof FrameworkError ? current.previous : (current as { cause?: unknown }).cause;
  }
  if (current !== undefined && !(current instanceof Error) && chain.length < limit) chain.push(new NonErrorThrown(current));
  return chain;
}

export function statusOf(error: unknown): number {
  if (error instanceof HttpException) return error.statusCode;
  if (error instanceof RequestError) return 400;
  return 500;
}

export function headersOf(error: unknown): Record<string, string> {
  return error instanceof HttpException ? error.headers : {};
}
