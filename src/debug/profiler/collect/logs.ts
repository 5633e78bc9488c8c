/**
 * The request's log records as a profile keeps them: Monolog's upper-case level names, messages
 * interpolated, scrubbed and bounded, contexts sanitized.
 */
import type { KernelRequest } from '../../../http/request.ts';
import { LEVELS } from '../../../log/levels.ts';
import { interpolate } from '../../../log/record.ts';
import { isoString } from '../../error-page/iso-date.ts';
import { describeValue } from '../../error-page/safe-json.ts';
import { sanitize, scrubStoredText, truncate } from '../mask.ts';
import type { ProfiledLogRecord } from '../profile.ts';
import { PROFILE_LIMITS } from './limits.ts';

function recordDatetime(record: { datetime: Date }): string {
  try {
    return isoString(record.datetime);
  } catch {
    return '';
  }
}

/** Monolog's upper-case level names, without a new string per record. */
const LEVEL_NAMES = new Map(Object.keys(LEVELS).map((name) => [name, name.toUpperCase()]));

function levelName(name: string): string {
  return LEVEL_NAMES.get(name) ?? name.toUpperCase();
}

export function logs(request: KernelRequest): ProfiledLogRecord[] {
  const records = request.logRecords;
  const n = Math.min(records.length, PROFILE_LIMITS.logs);
  const out: ProfiledLogRecord[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const r = records[i]!;
    let message: string;
    try {
      message = interpolate(r.message, r.context);
    } catch {
      // A message that is no string (plain JavaScript logging an error object) is described as the
      // debug page's Logs tab describes it; scrubbing it as it is would throw and lose the whole profile.
      message = typeof r.message === 'string' ? r.message : describeValue(r.message);
    }
    out[i] = {
      datetime: recordDatetime(r),
      level: r.level,
      level_name: levelName(r.levelName),
      channel: r.channel,
      message: truncate(scrubStoredText(message), 8192),
      context: sanitize(r.context),
    };
  }
  return out;
}
