/**
 * What the server answers by itself, before any listener runs: parse errors and timeouts (400, 405,
 * 408, 413, 431) and CONNECT (405). Written as raw bytes to the socket, because Node makes no
 * `ServerResponse` for a request it could not parse; hence apart from write-response.ts.
 */
import type http from 'node:http';
import type { Socket } from 'node:net';
import { DEFAULT_METHODS } from '../../http/methods.ts';
import { noop } from './failures.ts';
import { closeAfterPending } from './listener.ts';

const REASONS: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 413: 'Payload Too Large', 414: 'URI Too Long', 431: 'Request Header Fields Too Large' };

function rawResponse(status: number, extra = ''): string {
  return `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nConnection: close\r\nContent-Length: 0\r\n${extra}\r\n`;
}

/** The adapter's own 405 (CONTRACT §8.6, §9): CONNECT, and methods Node's parser refuses. */
const METHOD_NOT_ALLOWED = rawResponse(405, `Allow: ${DEFAULT_METHODS.join(', ')}\r\nX-Robots-Tag: noindex\r\n`);

/** A request line's start: an RFC 9110 token (a method) and then a space, or the end of what arrived. */
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?: |$)/;

/**
 * Whether llhttp refused the request for its method: a lower-case (`get`) or unknown (`BREW`) token
 * followed by a space. `HPE_INVALID_METHOD` also covers what is no request line at all (binary
 * garbage, a leading space, a status line, `GET\t/`): those stay a 400.
 */
function refusedForMethod(err: Error & { code?: string; rawPacket?: unknown; bytesParsed?: unknown }): boolean {
  if (err.code !== 'HPE_INVALID_METHOD') return false;
  const packet = err.rawPacket;
  if (!Buffer.isBuffer(packet)) return false;
  // The failing byte is in this packet; its request line starts after the last LF before it (an
  // earlier request of the same packet ends there).
  const at = typeof err.bytesParsed === 'number' ? Math.min(Math.max(0, err.bytesParsed), packet.length) : 0;
  const start = at > 0 ? packet.lastIndexOf(0x0a, at - 1) + 1 : 0;
  return METHOD_TOKEN.test(packet.toString('latin1', start, Math.min(packet.length, start + 256)));
}

const kFailedAfterPending = Symbol('irms.failedAfterPending');
/** node:http's own fields of a server socket: the answer being written, and the request its parser read last. */
type ClientSocket = Socket & { _httpMessage?: http.ServerResponse | null; parser?: { incoming?: http.IncomingMessage | null } | null; [kFailedAfterPending]?: true };

/**
 * Parse errors and timeouts: answer and close. With answers to earlier requests of the connection
 * still under way (a request being computed, and a malformed one pipelined behind it), an answer
 * written now would come first and be read as theirs: the 400 taken for the earlier request's answer,
 * and its own lost although its handler ran. Those answers go out first instead: at the end of the
 * turn (once the requests the batching deferred have started, node-batch.ts) the connection is set to
 * close after the last of them (as at shutdown, listener.ts), the malformed request unanswered; with
 * none left by then, it gets its answer as usual.
 */
export function onClientError(err: Error & { code?: string }, socket: Socket): void {
  const s = socket as ClientSocket;
  // Only for an error in a request not handed out yet: one about the body of a request already
  // handed out (cut off, too slow) is that request's own answer, given at once (it waits for that body).
  const incoming = s.parser?.incoming;
  if (s._httpMessage && err.code !== 'ECONNRESET' && !socket.destroyed && (!incoming || incoming.complete)) {
    // Node reports the parse error again for every later read: once is enough.
    if (s[kFailedAfterPending]) return;
    s[kFailedAfterPending] = true;
    setImmediate(() => {
      if (!socket.destroyed && !closeAfterPending(socket)) answerClientError(err, socket);
    });
    return;
  }
  answerClientError(err, socket);
}

function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  const inFlight = (socket as ClientSocket)._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && (!inFlight || !inFlight.headersSent)) {
    const status =
      err.code === 'HPE_HEADER_OVERFLOW' ? 431
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408
      : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW' ? 413
      : refusedForMethod(err) ? 405
      : 400;
    try {
      socket.end(status === 405 ? METHOD_NOT_ALLOWED : rawResponse(status));
    } catch {
      // the socket went away meanwhile
    }
  }
  // Give the answer a moment to leave, then make sure the connection is gone.
  if (!socket.destroyed) setTimeout(() => socket.destroy(), 1000).unref();
}

/**
 * CONNECT: no tunnels here. Node hands the socket over with the CONNECT, also when it was pipelined
 * behind a request whose answer is still under way: a 405 written now would come first and be read as
 * that answer, which would be lost although its handler ran. As for a malformed request (onClientError),
 * those answers go out first and the last one closes the connection, the CONNECT unanswered.
 */
export function onConnect(_req: http.IncomingMessage, socket: Socket): void {
  socket.on('error', noop);
  if ((socket as ClientSocket)._httpMessage) {
    setImmediate(() => {
      if (!socket.destroyed && !closeAfterPending(socket)) refuseConnect(socket);
    });
    return;
  }
  refuseConnect(socket);
}

function refuseConnect(socket: Socket): void {
  try {
    socket.end(METHOD_NOT_ALLOWED);
  } catch {
    // gone already
  }
  setTimeout(() => socket.destroy(), 1000).unref();
}
