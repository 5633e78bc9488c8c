/**
 * Batching under load for the Node adapter: compute the responses of one event-loop turn together.
 *
 * Node calls the request listener from inside each socket's read callback, so a saturated server
 * alternates read → handle → write for every connection. When many connections are ready in the same
 * turn, deferring the handlers to the turn's check phase reads every ready socket first, then computes
 * every response, then lets Node write them all (the scheduler and its load measure: turn-batch.ts).
 * Measured on this project's bench (docs/node-adapter.md, bench/HISTORY.md): at 50 connections the
 * server's CPU per `GET /` falls from 42 to 26 µs for irms-web, and from 26.5 to 19.6 µs for a
 * hand-written node:http handler. The response is the same either way; only when it is computed
 * changes (still in the turn that read the request). The queue holds one turn's requests: what Node
 * parsed from the sockets it read in that turn, each of which it has already given its own
 * ServerResponse, batching or not.
 */
import type http from 'node:http';
import { TurnBatcher } from './turn-batch.ts';

type Listener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface BatchingListener extends Listener {
  /** Whether requests are being batched now (tests, diagnostics). */
  readonly batching: boolean;
}

/**
 * Wraps a request listener that never throws (createNodeListener catches everything). A throw from
 * it all the same goes to `onError`, and the rest of a batch is still handled.
 */
export function batchUnderLoad(listener: Listener, onError: (err: unknown) => void): BatchingListener {
  const batcher = new TurnBatcher(listener, onError);
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => batcher.submit(req, res);
  Object.defineProperty(onRequest, 'batching', { get: () => batcher.batching });
  return onRequest as BatchingListener;
}
