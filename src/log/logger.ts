import { LEVELS, type LevelName } from './levels.ts';
import { formatRecord, type LogFormat } from './format.ts';
import type { LogRecord } from './record.ts';
import { maskQuerySecrets } from '../debug/profiler/mask.ts';

/**
 * Where formatted lines go. The runtime entries pass stderr; tests pass an array's push. A sink may be
 * asynchronous (a network shipper): its promise's rejection is ignored, as a synchronous throw is.
 * Two signatures, not `(line) => void | Promise<void>`: that one would refuse `(l) => lines.push(l)`.
 */
export type LogSink = ((line: string) => void) | ((line: string) => Promise<void>);

/**
 * Bytes stderr may hold queued before lines are dropped. Node queues a write to a pipe nobody reads (a
 * stalled log driver) in memory without limit, and every request, anonymous ones too, adds lines
 * (CONTRACT §10). 8 MiB is seconds of logging at full load: a reader that merely lags loses nothing.
 */
export const STDERR_BACKLOG_BYTES = 8 * 1024 * 1024;

/** What stderrSink needs of a stream: Node's `process.stderr`, a Writable in tests. */
export interface LineStream {
  write(s: string): unknown;
  /** Bytes queued and not yet handed to the OS (Node's Writable); absent where writes are synchronous. */
  readonly writableLength?: number;
  once?(event: 'drain', listener: () => void): unknown;
  on?(event: 'error', listener: (error: unknown) => void): unknown;
}

/** Streams stderrSink already listens to for errors: one listener each, however many apps share one. */
const guardedStreams = new WeakSet<object>();

/**
 * Ignores the stream's write errors. A stderr pipe whose reader went away (`… 2>&1 | head`, a log
 * driver restarted) fails every write with EPIPE, emitted as an 'error' event: with no listener, Node
 * throws it as an uncaught exception and the server exits. Monolog's StreamHandler leaves a failed
 * fwrite unchecked too: the line is lost, the request goes on.
 */
function ignoreWriteErrors(stream: LineStream): void {
  if (typeof stream.on !== 'function' || guardedStreams.has(stream)) return;
  guardedStreams.add(stream);
  stream.on('error', () => {});
}

/**
 * Lines to `process.stderr` (console.error where there is none). Past `limit` queued bytes a line is
 * dropped and counted; when the stream has drained, one line says how many were lost. Deno's
 * `process.stderr` writes synchronously (its writableLength stays 0), so the bound never trips there.
 */
export function stderrSink(stream?: LineStream, limit = STDERR_BACKLOG_BYTES): LogSink {
  const target = stream ?? (globalThis as { process?: { stderr?: LineStream } }).process?.stderr;
  if (!target?.write) return (line) => console.error(line);
  ignoreWriteErrors(target);
  let dropped = 0;
  return (line) => {
    if ((target.writableLength ?? 0) > limit) {
      // The queue is past the stream's high-water mark, so the last write returned false: 'drain' comes.
      if (dropped++ === 0) {
        target.once?.('drain', () => {
          const count = dropped;
          dropped = 0;
          target.write(`irms-web: ${count} log lines dropped (stderr not keeping up)\n`);
        });
      }
      return;
    }
    target.write(line + '\n');
  };
}

/**
 * Calls of an asynchronous sink not settled yet, at most: past this lines are dropped, as stderr's
 * backlog bound does, so a slow collector cannot make them grow with traffic (CONTRACT §10).
 */
export const MAX_PENDING_SINK_WRITES = 1024;

/**
 * The application's log stream: formats and writes records at or above `minLevel`. Records for one
 * request also go to that request's buffer (see RequestLogger), whatever the stream level.
 */
export class LogStream {
  readonly minLevel: number;
  /** Promises of the sink not settled yet. */
  private pending = 0;
  /** Lines not handed to the sink since it last kept up. */
  private dropped = 0;
  private readonly settle = () => void this.pending--;

  constructor(
    private readonly sink: LogSink,
    minLevel: LevelName,
    private readonly format: LogFormat,
  ) {
    this.minLevel = LEVELS[minLevel];
  }

  accepts(level: number): boolean {
    return level >= this.minLevel;
  }

  write(record: LogRecord): void {
    if (record.level < this.minLevel) return;
    if (this.pending >= MAX_PENDING_SINK_WRITES) {
      this.dropped++;
      return;
    }
    if (this.dropped > 0) {
      const count = this.dropped;
      this.dropped = 0;
      this.send({ ...record, channel: 'app', level: LEVELS.warning, levelName: 'warning', message: `${count} log lines dropped (the log sink was not keeping up)`, context: {} });
    }
    this.send(record);
  }

  private send(record: LogRecord): void {
    try {
      const result = this.sink(formatRecord(record, this.format));
      if (result != null && typeof (result as { then?: unknown }).then === 'function') {
        // A broken sink must never break a request, nor the process through an unhandled rejection.
        this.pending++;
        result.then(this.settle, this.settle);
      }
    } catch {
      // A broken log sink must never break a request.
    }
  }
}

const LEVEL_NAMES = Object.keys(LEVELS) as LevelName[];

/**
 * Monolog's Logger::toMonologLevel: a level name in any case (`WARNING`) or a level's number (300).
 * Anything else is refused with Monolog's message (Psr\Log\InvalidArgumentException there): it names
 * no level, and written anyway it was `app.WARN` in debug mode and nothing in production.
 */
function monologLevel(given: unknown): { level: number; levelName: LevelName } {
  const name = typeof given === 'string' ? given.toLowerCase() : LEVEL_NAMES.find((n) => LEVELS[n] === given);
  if (name !== undefined && Object.hasOwn(LEVELS, name)) return { level: LEVELS[name as LevelName], levelName: name as LevelName };
  const values = LEVEL_NAMES.map((n) => LEVELS[n]);
  const names = LEVEL_NAMES.map((n) => n.toUpperCase());
  throw new Error(`Level "${String(given)}" is not defined, use one of: ${[...values, ...names].join(', ')}`);
}

/** Extra fields every record of a request carries (Monolog processors' job): url, http_method, request_id. */
export type LogExtra = Record<string, unknown>;

/** How many records one request keeps for the error page and the profiler. */
export const MAX_RECORDS_PER_REQUEST = 500;

/**
 * Logger bound to one request: writes to the stream and, in debug mode, keeps the request's records
 * (bounded) for the error page's Logs tab and the profile. Channels are plain strings.
 */
export class Logger {
  readonly records: LogRecord[] | null;
  private dropped = 0;

  constructor(
    readonly stream: LogStream,
    keepRecords: boolean,
    private readonly extra: () => LogExtra,
  ) {
    this.records = keepRecords ? [] : null;
  }

  /** Records beyond the per-request bound that were not kept. */
  get droppedRecords(): number {
    return this.dropped;
  }

  isEnabled(level: LevelName): boolean {
    return this.records !== null || this.stream.accepts(LEVELS[level]);
  }

  /** Whether a record of this level and channel would be kept or written (hot callers skip building its context). */
  wouldLog(levelName: LevelName, channel: string): boolean {
    return this.keeps(channel) || this.stream.accepts(LEVELS[levelName]);
  }

  /** `event` records (one per listener call) are never kept: the profile has the listener trace. */
  private keeps(channel: string): boolean {
    return this.records !== null && channel !== 'event';
  }

  log(levelName: LevelName, channel: string, message: string, context: Record<string, unknown> = {}): void {
    let level: number = LEVELS[levelName];
    // Plain JavaScript passes what it likes: a level read only as a lower-case own name made `WARNING`
    // a record without a level (hidden from the Logs panel, the whole profile refused by the file store).
    // `typeof`, not `=== undefined`: `constructor` or `toString` read Object.prototype's functions from LEVELS.
    if (typeof level !== 'number') ({ level, levelName } = monologLevel(levelName));
    const keep = this.keeps(channel);
    if (!keep && !this.stream.accepts(level)) return;
    const record: LogRecord = { datetime: new Date(), channel, level, levelName, message, context, extra: this.maskedExtra() };
    if (keep) this.retain(record);
    this.stream.write(record);
  }

  /**
   * Keeps a record for the error page and the profile without writing it to the stream: what Symfony's
   * profiler shows of a record that a Monolog handler filtered out (`excluded_http_codes`), since its
   * DebugProcessor sees every record the logger is given. Nothing is kept outside debug mode.
   */
  keep(levelName: LevelName, channel: string, message: string, context: Record<string, unknown> = {}): void {
    if (this.keeps(channel)) this.retain({ datetime: new Date(), channel, level: LEVELS[levelName], levelName, message, context, extra: this.maskedExtra() });
  }

  /**
   * Keeps a record of this request, up to MAX_RECORDS_PER_REQUEST; the ones past it are counted. Past
   * the bound a WARNING or worse still gets in, in place of the oldest record below WARNING (else the
   * oldest): a request that logged 500 lines and then failed lost its "Uncaught Exception" record, and
   * the toolbar and Logs panel said 0 errors.
   */
  private retain(record: LogRecord): void {
    const records = this.records!;
    if (records.length < MAX_RECORDS_PER_REQUEST) {
      records.push(record);
      return;
    }
    this.dropped++;
    if (record.level < LEVELS.warning) return;
    const minor = records.findIndex((r) => r.level < LEVELS.warning);
    records.splice(minor < 0 ? 0 : minor, 1);
    records.push(record);
  }

  /** The request URL last masked, and its masked form: every record of a request carries the same one. */
  private rawUrl: string | null = null;
  private maskedUrl = '';

  /**
   * The extra fields with secret query parameters of `url` masked (`?token=***`), by the profiler's
   * rule (maskQuerySecrets). A URL without `=` (most requests) is left as it is, without a pattern run
   * or a copy; a masked URL is worked out once per request.
   */
  private maskedExtra(): LogExtra {
    const extra = this.extra();
    const url = extra.url;
    if (typeof url !== 'string' || url.indexOf('=') < 0) return extra;
    if (url !== this.rawUrl) {
      this.maskedUrl = maskQuerySecrets(url);
      this.rawUrl = url;
    }
    return this.maskedUrl === url ? extra : { ...extra, url: this.maskedUrl };
  }

  debug(channel: string, message: string, context?: Record<string, unknown>): void {
    this.log('debug', channel, message, context);
  }
  info(channel: string, message: string, context?: Record<string, unknown>): void {
    this.log('info', channel, message, context);
  }
  notice(channel: string, message: string, context?: Record<string, unknown>): void {
    this.log('notice', channel, message, context);
  }
  warning(channel: string, message: string, context?: Record<string, unknown>): void {
    this.log('warning', channel, message, context);
  }
  error(channel: string, message: string, context?: Record<string, unknown>): void {
    this.log('error', channel, message, context);
  }
  critical(channel: string, message: string, context?: Record<string, unknown>): void {
    this.log('critical', channel, message, context);
  }
}
