import { LEVELS, type LevelName } from './levels.ts';
import { formatRecord, type LogFormat } from './format.ts';
import type { LogRecord } from './record.ts';
import { maskQuerySecrets } from '../debug/profiler/mask.ts';

/** Where formatted lines go. The runtime entries pass stderr; tests pass an array's push. */
export type LogSink = (line: string) => void;

export function stderrSink(): LogSink {
  const proc = (globalThis as { process?: { stderr?: { write(s: string): unknown } } }).process;
  if (proc?.stderr?.write) {
    const stderr = proc.stderr;
    return (line) => void stderr.write(line + '\n');
  }
  return (line) => console.error(line);
}

/**
 * The application's log stream: formats and writes records at or above `minLevel`. Records for one
 * request also go to that request's buffer (see RequestLogger), whatever the stream level.
 */
export class LogStream {
  readonly minLevel: number;
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
    try {
      this.sink(formatRecord(record, this.format));
    } catch {
      // A broken log sink must never break a request.
    }
  }
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
    const level = LEVELS[levelName];
    const keep = this.keeps(channel);
    if (!keep && !this.stream.accepts(level)) return;
    const record: LogRecord = { datetime: new Date(), channel, level, levelName, message, context, extra: this.maskedExtra() };
    if (keep) {
      if (this.records!.length < MAX_RECORDS_PER_REQUEST) this.records!.push(record);
      else this.dropped++;
    }
    this.stream.write(record);
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
