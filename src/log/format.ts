import { isoString } from '../debug/error-page/iso-date.ts';
import { interpolate, type LogRecord } from './record.ts';
import { encodeJson, normalize } from './normalize.ts';
import { scrubText } from '../debug/profiler/mask.ts';
import { describeValue } from '../debug/error-page/safe-json.ts';

export { MAX_PREVIOUS_EXCEPTIONS } from './normalize.ts';

export type LogFormat = 'line' | 'json';

/** Monolog's datetime shape: 2026-11-22T10:11:12.123456+00:00. */
export function monologDate(d: Date): string {
  const iso = isoString(d);
  if (iso !== lastIso) {
    lastMonolog = iso.replace(/\.(\d{3})Z$/, '.$1000+00:00');
    lastIso = iso;
  }
  return lastMonolog;
}

/** The last date written: the records of a request share their millisecond more often than not. */
let lastIso = '';
let lastMonolog = '';

/** Monolog's LineFormatter without inline line breaks: a message's CR/LF become spaces, one record per line. */
function oneLine(text: string): string {
  return text.includes('\n') || text.includes('\r') ? text.replace(/\r\n|\r|\n/g, ' ') : text;
}

/**
 * The record's message interpolated. A message that is no string (plain JavaScript passing an error or
 * an object, as PSR-3's `Stringable` allows in PHP) is described as the debug page's Logs tab describes
 * it (`[object Error]`): interpolating it would throw, and the record would be lost from the stream.
 */
function messageText(record: LogRecord): string {
  return typeof record.message === 'string' ? interpolate(record.message, record.context) : describeValue(record.message);
}

/**
 * The record as a `line` (Monolog's LineFormatter) or `json` (Monolog's JsonFormatter) log line. Its
 * context and extra are normalized as Monolog's NormalizerFormatter does, secret-named fields masked
 * and strings scrubbed on the way (normalize), and the message is scrubbed whole, its literal text
 * included: an application logs what it likes, the stream never shows a secret. An exception in the
 * context is LineFormatter's string in the line format and JsonFormatter's object in the json format.
 */
export function formatRecord(record: LogRecord, format: LogFormat): string {
  const context = normalize(record.context, format);
  const extra = normalize(record.extra, format);
  // The literal text too, not only what placeholders print: an error's message written into the text
  // (`Uncaught Exception …`, `Unhandled promise rejection: …`) often holds the URL or header it sent.
  const message = scrubText(messageText(record));
  if (format === 'json') {
    return encodeJson({
      message,
      context,
      level: record.level,
      level_name: record.levelName.toUpperCase(),
      channel: record.channel,
      datetime: monologDate(record.datetime),
      extra,
    });
  }
  const ctx = encodeJson(context);
  const ext = encodeJson(extra);
  return `[${monologDate(record.datetime)}] ${oneLine(record.channel)}.${record.levelName.toUpperCase()}: ${oneLine(message)} ${ctx === '{}' ? '[]' : ctx} ${ext === '{}' ? '[]' : ext}`;
}
