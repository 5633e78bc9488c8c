/**
 * Batching under load for the Node adapter: compute the responses of one event-loop turn together.
 *
 * Node calls the request listener from inside each socket's read callback, so a saturated server
 * alternates read → handle → write for every connection. When many connections are ready in the same
 * turn, deferring the handlers to the turn's check phase (`setImmediate`) reads every ready socket
 * first, then computes every response, then lets Node write them all. Measured on this project's bench
 * (docs/node-adapter.md, BENCHMARKS.md): at 50 connections the server's CPU per `GET /` falls from
 * 42 to 26 µs for irms-web, and from 26.5 to 19.6 µs for a hand-written node:http handler. The socket
 * writes and wake-ups come in bursts instead of one at a time, and the same code runs back to back
 * while its caches are warm.
 *
 * With one request per turn the deferral is a loss (≈ 10 µs more per request at one connection), so
 * the scheduler measures the load: an average of requests per turn, sampled by a probe every few
 * requests while it answers at once, and by each batch while it batches. It batches above
 * ENTER_BATCHING and answers at once again below LEAVE_BATCHING. The response is the same either way;
 * only when it is computed changes (still in the turn that read the request). The queue holds one
 * turn's requests: what Node parsed from the sockets it read in that turn, each of which it has
 * already given its own ServerResponse, batching or not.
 */
import type http from 'node:http';

type Listener = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** Average requests per event-loop turn from which requests are batched (always batching, measured: 4 connections gain, 2 lose). */
export const ENTER_BATCHING = 2.5;
/** Average below which requests are answered at once again. */
export const LEAVE_BATCHING = 1.5;
/** While answering at once, one turn in this many requests is counted. */
const PROBE_EVERY = 8;
/** Weight of the newest sample in the average. */
const WEIGHT = 0.25;

export interface BatchingListener extends Listener {
  /** Whether requests are being batched now (tests, diagnostics). */
  readonly batching: boolean;
}

/**
 * Wraps a request listener that never throws (createNodeListener catches everything). A throw from
 * it all the same goes to `onError`, and the rest of a batch is still handled.
 */
export function batchUnderLoad(listener: Listener, onError: (err: unknown) => void): BatchingListener {
  let batching = false;
  let load = 1;
  let queuedRequests: http.IncomingMessage[] = [];
  let queuedResponses: http.ServerResponse[] = [];
  let sinceProbe = 0;
  let probing = false;
  let probed = 0;

  const flush = () => {
    const requests = queuedRequests;
    const responses = queuedResponses;
    queuedRequests = [];
    queuedResponses = [];
    load += (requests.length - load) * WEIGHT;
    if (load < LEAVE_BATCHING) batching = false;
    for (let i = 0; i < requests.length; i++) {
      try {
        listener(requests[i]!, responses[i]!);
      } catch (err) {
        onError(err);
      }
    }
  };
  const probe = () => {
    probing = false;
    load += (probed - load) * WEIGHT;
    if (load >= ENTER_BATCHING) batching = true;
  };

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (batching) {
      if (queuedRequests.length === 0) setImmediate(flush);
      queuedRequests.push(req);
      queuedResponses.push(res);
      return;
    }
    if (probing) probed++;
    else if (++sinceProbe >= PROBE_EVERY) {
      sinceProbe = 0;
      probing = true;
      probed = 1;
      setImmediate(probe);
    }
    try {
      listener(req, res);
    } catch (err) {
      onError(err);
    }
  };
  Object.defineProperty(onRequest, 'batching', { get: () => batching });
  return onRequest as BatchingListener;
}
