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

/**
 * Monolog's LineFormatter without inline line breaks (replaceNewlines): a message's CR/LF become spaces,
 * one record per line. Beyond Monolog, which leaves the rest of a message raw, so that a client's text
 * quoted in a message (the Host of `Invalid Host "…"`, a Referer, a decoded route parameter) can neither
 * split the record nor drive the terminal that tails the log:
 * - every other character a viewer may break a line at (VT, FF, FS/GS/RS, NEL, U+2028, U+2029: what
 *   Python's splitlines and xterm's NEL take for one) becomes a space too;
 * - the other control characters (C0 but tab, DEL, C1: NUL, ESC of `ESC[2J`, its 8-bit form CSI U+009B)
 *   are written as JSON escapes (`\u001b`), as the context's JSON beside them writes them.
 */
function oneLine(text: string): string {
  if (!UNSAFE_IN_LINE.test(text)) return text;
  return text.replace(LINE_BREAKS, ' ').replace(CONTROLS, escapeControl);
}

const UNSAFE_IN_LINE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]/;
const LINE_BREAKS = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/g;
const CONTROLS = /[\x00-\x08\x0e-\x1b\x1f\x7f-\x9f]/g;

function escapeControl(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
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
