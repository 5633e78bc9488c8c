/**
 * The load-measuring scheduler behind both adapters' batching (node-batch.ts, deno-batch.ts).
 *
 * A server that hands its application one request at a time, straight from its I/O callback, runs the
 * application cold for every request: between two calls the runtime's own work (Node's parser and
 * streams, Deno's hyper) has evicted the application's code and data from the CPU caches. When many
 * requests are ready in the same event-loop turn, running them together in the turn's check phase
 * (`setImmediate`) runs the same code back to back while it is warm, and lets the runtime write the
 * responses in a burst. With one request per turn the deferral is a loss instead (measured at one
 * connection: ≈ 10 µs more per request on Node, 11 % more CPU per request on Deno), so the scheduler
 * measures the load: an average of requests per turn, sampled by a probe every few requests while it
 * runs them at once, and by each batch while it batches. It batches above ENTER_BATCHING and runs
 * requests at once again below LEAVE_BATCHING. Hosts without `setImmediate` (workerd) never batch.
 *
 * Jobs are pairs of arguments for one `run` function (two parallel queues), so queueing a request
 * allocates nothing.
 */

/** Average requests per event-loop turn from which requests are batched (always batching, measured: 4 connections gain, 2 lose). */
export const ENTER_BATCHING = 2.5;
/** Average below which requests are run at once again. */
export const LEAVE_BATCHING = 1.5;
/** While running requests at once, one turn in this many requests is counted. */
const PROBE_EVERY = 8;
/** Weight of the newest sample in the average. */
const WEIGHT = 0.25;

const checkPhase: ((callback: () => void) => unknown) | null =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function'
    ? (globalThis as unknown as { setImmediate: (callback: () => void) => unknown }).setImmediate
    : null;

export class TurnBatcher<A, B> {
  #batching = false;
  #load = 1;
  #queuedA: A[] = [];
  #queuedB: B[] = [];
  #sinceProbe = 0;
  #probing = false;
  #probed = 0;
  readonly #flush = () => this.#runQueued();
  readonly #probe = () => this.#endProbe();

  /**
   * `run` computes one request's answer; a throw from it goes to `onError`, and the rest of a batch
   * still runs.
   */
  constructor(
    private readonly run: (a: A, b: B) => void,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Whether requests are being batched now (tests, diagnostics). */
  get batching(): boolean {
    return this.#batching;
  }

  /** Runs `run(a, b)` now, or at the end of this turn when the server is under load. */
  submit(a: A, b: B): void {
    if (this.#batching) {
      if (this.#queuedA.length === 0) checkPhase!(this.#flush);
      this.#queuedA.push(a);
      this.#queuedB.push(b);
      return;
    }
    if (this.#probing) this.#probed++;
    else if (checkPhase !== null && ++this.#sinceProbe >= PROBE_EVERY) {
      this.#sinceProbe = 0;
      this.#probing = true;
      this.#probed = 1;
      checkPhase(this.#probe);
    }
    this.#runOne(a, b);
  }

  #runOne(a: A, b: B): void {
    try {
      this.run(a, b);
    } catch (err) {
      this.onError(err);
    }
  }

  #runQueued(): void {
    const as = this.#queuedA;
    const bs = this.#queuedB;
    this.#queuedA = [];
    this.#queuedB = [];
    this.#load += (as.length - this.#load) * WEIGHT;
    if (this.#load < LEAVE_BATCHING) this.#batching = false;
    for (let i = 0; i < as.length; i++) this.#runOne(as[i]!, bs[i]!);
  }

  #endProbe(): void {
    this.#probing = false;
    this.#load += (this.#probed - this.#load) * WEIGHT;
    if (this.#load >= ENTER_BATCHING) this.#batching = true;
  }
}
