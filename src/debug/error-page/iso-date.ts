/**
 * `date.toISOString()` for the times a request formats over and over: its log records, the error
 * page's Logs tab and its profile. The last answer is kept, and the `YYYY-MM-DDTHH:MM:` prefix of
 * the current minute, so a new millisecond costs a few digits instead of a date conversion. Throws
 * as toISOString does (an invalid date).
 */
let lastTime = NaN;
let lastText = '';
let minuteStart = NaN;
let minutePrefix = '';
/** Year 10000: beyond, toISOString writes an extended year. */
const MAX_TIME = 253_402_300_800_000;

export function isoString(date: Date): string {
  // A real Date (not a subclass or a look-alike): its ISO form depends only on its time value.
  if (Object.getPrototypeOf(date) !== Date.prototype) return date.toISOString();
  return isoStringOf(date.getTime());
}

/** The same for a time in milliseconds. */
export function isoStringOf(time: number): string {
  if (time === lastTime) return lastText;
  if (!Number.isInteger(time) || time < 0 || time >= MAX_TIME) return new Date(time).toISOString();
  const minute = time - (time % 60_000);
  if (minute !== minuteStart) {
    minutePrefix = new Date(minute).toISOString().slice(0, 17);
    minuteStart = minute;
  }
  const rest = time - minute;
  const seconds = Math.floor(rest / 1000);
  const ms = rest - seconds * 1000;
  lastText = `${minutePrefix}${seconds < 10 ? '0' : ''}${seconds}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
  lastTime = time;
  return lastText;
}
