/**
 * The request body as a web stream over an `IncomingMessage` (what `IncomingSource.body()` hands out),
 * and the error both body readers fail with when the client leaves mid-body. Apart from the source:
 * the stream's event wiring and backpressure are a piece of their own.
 */
import type http from 'node:http';
import { noop } from './failures.ts';

export function clientGoneError(): Error {
  return Object.assign(new Error('The client closed the connection before the request body was complete.'), { code: 'ECONNRESET' });
}

/**
 * A web stream over the request body with backpressure (the socket is paused while the reader is
 * behind). Cancelling it does not destroy the connection — the rest of the body is discarded, so a
 * response (e.g. 413) can still be written; the writer then closes the connection.
 */
export function incomingBodyStream(req: http.IncomingMessage, onCancel: () => void): ReadableStream<Uint8Array> {
  let finished = false;
  let onData: (chunk: Buffer) => void;
  let onEnd: () => void;
  let onError: (err: Error) => void;
  let onClose: () => void;
  const detach = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
    req.off('close', onClose);
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        onData = (chunk) => {
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        onEnd = () => {
          if (finished) return;
          finished = true;
          detach();
          controller.close();
        };
        onError = (err) => {
          if (finished) return;
          finished = true;
          detach();
          controller.error(err);
        };
        onClose = () => {
          // 'close' without 'end': the client went away mid-body.
          if (!finished) onError(clientGoneError());
        };
        // Already closed (see readBody): no event will come.
        if (req.destroyed) {
          finished = true;
          controller.error(clientGoneError());
          return;
        }
        req.on('data', onData);
        req.on('end', onEnd);
        req.on('error', onError);
        req.on('close', onClose);
        req.pause();
      },
      pull() {
        req.resume();
      },
      cancel() {
        if (!finished) {
          finished = true;
          detach();
          onCancel();
          // Discard the rest (the response is still to be written; the writer closes the connection).
          req.on('error', noop);
          req.resume();
        }
      },
    },
    { highWaterMark: 1 },
  );
}
