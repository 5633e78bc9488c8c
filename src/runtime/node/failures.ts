/**
 * How the Node adapter fails without crashing (CONTRACT §10): errors reported to the application's
 * log (stderr without one), errors deliberately swallowed (`noop`), and the last-resort 500. Every
 * other file of the adapter uses these, and this one takes nothing from them but a type: no cycle.
 */
import type http from 'node:http';
import { INTERNAL_ERROR_BODY, INTERNAL_ERROR_HEADERS } from '../../http/internal-error.ts';
import type { NodeApp, RequestLogger } from './types.ts';

export function noop(): void {}

export function reportError(app: NodeApp, message: string, err: unknown): void {
  const line = `${message}: ${errorDetail(err)}`;
  try {
    if (app.log) {
      app.log('error', line);
      return;
    }
  } catch {
    // the log itself failed: fall through to stderr
  }
  try {
    process.stderr.write(`irms-web: ${line}\n`);
  } catch {
    // nothing left to report to
  }
}

/**
 * reportError for a failure of one request's response after the kernel answered (its body stream):
 * the same line, on the request's own logger when the application gave it, so the record says which
 * request it was (url with secrets masked, method, request id), as every record of the request does.
 */
export function reportRequestError(app: NodeApp, request: RequestLogger | undefined, message: string, err: unknown): void {
  if (request) {
    try {
      request.logger.error('app', `${message}: ${errorDetail(err)}`);
      return;
    } catch {
      // a broken request logger: the application's log, as for any other failure
    }
  }
  reportError(app, message, err);
}

/**
 * The error as one line of text, never a throw: what an application rejects with may have no
 * `toString` (`Object.create(null)`), or a `stack` getter or Proxy trap that throws. A throw here,
 * inside the adapter's last-resort handlers, left the client without an answer and escaped as an
 * unhandled rejection or an uncaught exception (the kernel guards its own logging likewise: messageOf).
 */
function errorDetail(err: unknown): string {
  try {
    return err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : String(err);
  } catch {
    try {
      return `an unprintable value (${Object.prototype.toString.call(err)})`;
    } catch {
      return 'an unprintable value';
    }
  }
}

/** The last resort when the application failed: a minimal 500, or a reset when bytes were already sent. */
export function sendInternalError(res: http.ServerResponse): void {
  if (res.destroyed) return;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  try {
    res.shouldKeepAlive = false;
    res.writeHead(500, { ...INTERNAL_ERROR_HEADERS, 'content-length': String(INTERNAL_ERROR_BODY.length) });
    res.end(res.req.method === 'HEAD' ? undefined : INTERNAL_ERROR_BODY);
  } catch {
    res.destroy();
  }
}
