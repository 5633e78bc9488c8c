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
    try {
      super(message, previous === undefined ? undefined : { cause: previous });
    } finally {
      // The limit is the whole process's: a message the Error constructor cannot make a string of (a
      // Symbol, a null-prototype object) throws here, and left every later error of the process stackless.
      if (capture) Error.stackTraceLimit = limit;
    }
    if (capture) capture(this, new.target);
    this.previous = previous;
  }
  /**
   * The class's own declared name; for an application's subclass that declares none
   * (`class PaymentRequiredHttpException extends HttpException`), its constructor's name: the inherited
   * `className` showed it as its parent in the problem document, the log line and the error page.
   */
  get className(): string {
    const ctor = this.constructor as typeof FrameworkError;
    return Object.hasOwn(ctor, 'className') ? ctor.className : ctor.name || ctor.className;
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

/*
 * Symfony 5.4's HttpException subclasses (HttpKernel\Exception), with their constructors less the
 * PHP-only `$code`: (message, previous, headers), after the class's own first argument where it has one.
 */

export class BadRequestHttpException extends HttpException {
  static override readonly className: string = 'BadRequestHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(400, message, previous, headers);
  }
}

/** Symfony sets `WWW-Authenticate` to the challenge whatever it is, an empty one included. */
export class UnauthorizedHttpException extends HttpException {
  static override readonly className: string = 'UnauthorizedHttpException';
  constructor(challenge: string, message = '', previous?: unknown, headers: Record<string, string> = {}) {
    super(401, message, previous, { ...headers, 'WWW-Authenticate': challenge });
  }
}

/** Symfony's default message is empty; `Access Denied.` is the security AccessDeniedException's. */
export class AccessDeniedHttpException extends HttpException {
  static override readonly className: string = 'AccessDeniedHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(403, message, previous, headers);
  }
}

export class NotFoundHttpException extends HttpException {
  static override readonly className: string = 'NotFoundHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(404, message, previous, headers);
  }
}

/** `Allow` is the allowed methods, upper-cased, over any `Allow` among `headers` (as in Symfony). */
export class MethodNotAllowedHttpException extends HttpException {
  static override readonly className: string = 'MethodNotAllowedHttpException';
  readonly allowedMethods: string[];
  constructor(allowed: string[], message = '', previous?: unknown, headers: Record<string, string> = {}) {
    const upper = allowed.map((m) => m.toUpperCase());
    super(405, message, previous, { ...headers, Allow: upper.join(', ') });
    this.allowedMethods = upper;
  }
}

export class NotAcceptableHttpException extends HttpException {
  static override readonly className: string = 'NotAcceptableHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(406, message, previous, headers);
  }
}

export class ConflictHttpException extends HttpException {
  static override readonly className: string = 'ConflictHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(409, message, previous, headers);
  }
}

export class GoneHttpException extends HttpException {
  static override readonly className: string = 'GoneHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(410, message, previous, headers);
  }
}

export class LengthRequiredHttpException extends HttpException {
  static override readonly className: string = 'LengthRequiredHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(411, message, previous, headers);
  }
}

export class PreconditionFailedHttpException extends HttpException {
  static override readonly className: string = 'PreconditionFailedHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(412, message, previous, headers);
  }
}

/** Not in Symfony 5.4: the 413 of the body limit (CONTRACT §8.2). */
export class PayloadTooLargeHttpException extends HttpException {
  static override readonly className: string = 'PayloadTooLargeHttpException';
  constructor(message = 'Request body is too large.', previous?: unknown) {
    super(413, message, previous);
  }
}

export class UnsupportedMediaTypeHttpException extends HttpException {
  static override readonly className: string = 'UnsupportedMediaTypeHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(415, message, previous, headers);
  }
}

export class UnprocessableEntityHttpException extends HttpException {
  static override readonly className: string = 'UnprocessableEntityHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(422, message, previous, headers);
  }
}

export class PreconditionRequiredHttpException extends HttpException {
  static override readonly className: string = 'PreconditionRequiredHttpException';
  constructor(message = '', previous?: unknown, headers?: Record<string, string>) {
    super(428, message, previous, headers);
  }
}

/** `retryAfter` (seconds or an HTTP date), when given and not empty or 0, is sent as `Retry-After` (as in Symfony). */
export class TooManyRequestsHttpException extends HttpException {
  static override readonly className: string = 'TooManyRequestsHttpException';
  constructor(retryAfter?: number | string | null, message = '', previous?: unknown, headers: Record<string, string> = {}) {
    super(429, message, previous, withRetryAfter(headers, retryAfter));
  }
}

/** Not in Symfony 5.4: 501 Not Implemented, for applications. */
export class NotImplementedHttpException extends HttpException {
  static override readonly className: string = 'NotImplementedHttpException';
  constructor(message = '', previous?: unknown) {
    super(501, message, previous);
  }
}

/** `retryAfter` (seconds or an HTTP date), when given and not empty or 0, is sent as `Retry-After` (as in Symfony). */
export class ServiceUnavailableHttpException extends HttpException {
  static override readonly className: string = 'ServiceUnavailableHttpException';
  constructor(retryAfter?: number | string | null, message = '', previous?: unknown, headers: Record<string, string> = {}) {
    super(503, message, previous, withRetryAfter(headers, retryAfter));
  }
}

/** Symfony's `if ($retryAfter) $headers['Retry-After'] = $retryAfter;`: a falsy value (0, '', null) sets nothing. */
function withRetryAfter(headers: Record<string, string>, retryAfter: number | string | null | undefined): Record<string, string> {
  return retryAfter ? { ...headers, 'Retry-After': String(retryAfter) } : headers;
}

/**
 * Request errors (Symfony's RequestExceptionInterface): malformed input detected while reading the
 * request. The kernel turns any of them into a BadRequestHttpException with the same message.
 */
export class RequestError extends FrameworkError {
  static override readonly className: string = 'RequestError';
}
export class SuspiciousOperationException extends RequestError {
  static override readonly className: string = 'SuspiciousOperationException';
}
export class ConflictingHeadersException extends RequestError {
  static override readonly className: string = 'ConflictingHeadersException';
}
export class BadRequestException extends RequestError {
  static override readonly className: string = 'BadRequestException';
}
export class JsonException extends RequestError {
  static override readonly className: string = 'JsonException';
}
export class SessionNotFoundException extends RequestError {
  static override readonly className: string = 'SessionNotFoundException';
}

/** Routing outcomes (Symfony's Routing\Exception namespace). */
export class ResourceNotFoundException extends FrameworkError {
  static override readonly className: string = 'ResourceNotFoundException';
}
/** Thrown for `/` when nothing at all is configured there; drives the debug welcome page. */
export class NoConfigurationException extends ResourceNotFoundException {
  static override readonly className: string = 'NoConfigurationException';
}
/** URL generation (Symfony's UrlGenerator): an unknown route name. */
export class RouteNotFoundException extends FrameworkError {
  static override readonly className: string = 'RouteNotFoundException';
}
/** URL generation: a path variable without a value. */
export class MissingMandatoryParametersException extends FrameworkError {
  static override readonly className: string = 'MissingMandatoryParametersException';
}
/** URL generation: a value its requirement refuses. */
export class InvalidParameterException extends FrameworkError {
  static override readonly className: string = 'InvalidParameterException';
}
export class MethodNotAllowedException extends FrameworkError {
  static override readonly className: string = 'MethodNotAllowedException';
  readonly allowedMethods: string[];
  constructor(allowedMethods: string[], message = '', previous?: unknown) {
    super(message, previous);
    this.allowedMethods = allowedMethods.map((m) => m.toUpperCase());
  }
}

/** Security (Symfony's Security\Core\Exception namespace). */
export class AuthenticationException extends FrameworkError {
  static override readonly className: string = 'AuthenticationException';
  /**
   * Symfony's getMessageKey(): the message meant for the client, fixed per class so that what went wrong
   * inside (the message) stays in the log; a custom authenticator's failure handler answers with it.
   */
  get messageKey(): string {
    return 'An authentication exception occurred.';
  }
}
/** An AccessDeniedException for a member who is not fully authenticated (anonymous, remember-me). */
export class InsufficientAuthenticationException extends AuthenticationException {
  static override readonly className: string = 'InsufficientAuthenticationException';
  override get messageKey(): string {
    return 'Not privileged to request the resource.';
  }
}
/** Credentials that are wrong; also what a custom authenticator that answered no member fails with. */
export class BadCredentialsException extends AuthenticationException {
  static override readonly className: string = 'BadCredentialsException';
  override get messageKey(): string {
    return 'Invalid credentials.';
  }
}
/** An authentication failure whose message is meant for the client (its messageKey is the message). */
export class CustomUserMessageAuthenticationException extends AuthenticationException {
  static override readonly className: string = 'CustomUserMessageAuthenticationException';
  override get messageKey(): string {
    return this.message;
  }
}
export class AccessDeniedException extends FrameworkError {
  static override readonly className: string = 'AccessDeniedException';
  constructor(message = 'Access Denied.', previous?: unknown) {
    super(message, previous);
  }
}

/**
 * A thrown value that is not an Error (a string, a number, an object): wrapped so that the error page,
 * logs and profiler always have a class, a message and a stack, and the original value is kept.
 */
export class NonErrorThrown extends FrameworkError {
  static override readonly className: string = 'NonErrorThrown';
  readonly value: unknown;
  constructor(value: unknown) {
    super(describeThrown(value));
    this.value = value;
  }
}

/** Never throws: a Proxy's traps may throw from JSON.stringify, String() and even Object.prototype.toString. */
function describeThrown(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return `Non-error value thrown: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`;
  } catch {
    try {
      return `Non-error value thrown: ${Object.prototype.toString.call(value)}`;
    } catch {
      return 'Non-error value thrown: [unreadable value]';
    }
  }
}

/**
 * Whether a thrown value is an Error, without throwing (`instanceof` runs a Proxy's getPrototypeOf
 * trap). An Error of another realm (a `vm` context, an iframe) is not `instanceof` this realm's Error;
 * its `Object.prototype.toString` still says `[object Error]`, as for every native error.
 */
export function isError(value: unknown): value is Error {
  try {
    if (value instanceof Error) return true;
    return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object Error]';
  } catch {
    return false;
  }
}

/** Every throw becomes an Error; non-Errors are wrapped, never lost. Never throws. */
export function toError(value: unknown): Error {
  return isError(value) ? value : new NonErrorThrown(value);
}

/** The class name pages and logs show for an error. */
export function classNameOf(error: unknown): string {
  if (error instanceof FrameworkError) return error.className;
  if (isError(error)) {
    // `name` is whatever a program assigned (a Symbol, an object whose toString throws); PHP's
    // get_class is always a string, and every reader of this one (log line, page, profile) writes it.
    const name: unknown = error.name;
    if (typeof name === 'string' && name !== '' && name !== 'Error') return name;
    const constructorName: unknown = error.constructor?.name;
    return typeof constructorName === 'string' && constructorName !== '' ? constructorName : 'Error';
  }
  return typeof error;
}

/** The cause chain, outermost first, cycle-safe and bounded; never throws (a cause getter may: the chain ends there). */
export function exceptionChain(error: unknown, limit = 32): Error[] {
  const chain: Error[] = [];
  let current: unknown = error;
  while (isError(current) && chain.length < limit && !chain.includes(current)) {
    chain.push(current);
    try {
      current = current instanceof FrameworkError ? current.previous : (current as { cause?: unknown }).cause;
    } catch {
      return chain;
    }
  }
  if (current !== undefined && !isError(current) && chain.length < limit) chain.push(new NonErrorThrown(current));
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

/**
 * Sets an HTTP exception's own headers on a response, one by one: a header the response refuses
 * (CR/LF or a character beyond U+00FF in the value, perhaps taken from the request) is skipped, and an
 * unreadable one too, so that the exception's other headers and the response itself survive.
 */
export function copyExceptionHeaders(error: unknown, headers: { set(name: string, value: string): void }): void {
  let own: Record<string, string>;
  let names: string[];
  try {
    own = headersOf(error);
    names = Object.keys(own);
  } catch {
    return;
  }
  for (const name of names) {
    try {
      headers.set(name, String(own[name]));
    } catch {
      // refused or unreadable: the other headers still go
    }
  }
}
