/**
 * The collected profile's JSON, made once and kept under PROFILE_LIMITS.profileBytes. Apart from the
 * collector: which parts are cut, and in what order, is a policy of its own.
 */
import { summaryOf } from '../profile.ts';
import { forgetProfileJson, headJson as headText, tailJson as tailText } from '../profile-json.ts';
import { CallList, CollectedProfile, splitProfileBytes, utf8Length, type NotCalledEntry, type ProfileHead, type ProfileTail } from '../stored.ts';
import { PROFILE_LIMITS } from './limits.ts';
import { truncate } from '../mask.ts';

/**
 * Serializes a profile once (reusing the JSON of parts equal to the last profile's, profile-json.ts)
 * and keeps it under PROFILE_LIMITS.profileBytes by dropping its largest optional parts
 * (re-serializing only then, with plain JSON.stringify).
 */
export function bound(head: ProfileHead, listeners: { calls: CallList; notCalled: NotCalledEntry[]; notCalledBytes: number }, tail: ProfileTail): CollectedProfile {
  let calls = listeners.calls;
  const { notCalled: notCalledList, notCalledBytes } = listeners;
  let headJson = '';
  let tailJson = '';
  let headBytes = 0;
  let tailBytes = 0;
  const serialize = (part: 'head' | 'tail' | 'both', remembered = false) => {
    if (part !== 'tail') {
      headJson = remembered ? headText(head) : JSON.stringify(head);
      headBytes = utf8Length(headJson);
    }
    if (part !== 'head') {
      tailJson = remembered ? tailText(tail) : JSON.stringify(tail);
      tailBytes = utf8Length(tailJson);
    }
  };
  const fits = () => splitProfileBytes(headBytes, calls.bytes, notCalledBytes, tailBytes) <= PROFILE_LIMITS.profileBytes;
  const done = () =>
    new CollectedProfile(
      head.token,
      summaryOf(head, 0),
      headJson,
      calls,
      notCalledList,
      tailJson,
      headBytes,
      notCalledBytes,
      tailBytes,
    );
  serialize('both', true);
  if (fits()) return done();
  // Cutting edits parts that the JSON memos may hold: they forget them first.
  forgetProfileJson();
  if (head.request.content) {
    head.request.content = null;
    head.request.contentTruncated = true;
    tail.truncated.push('request content');
    serialize('both');
    if (fits()) return done();
  }
  for (const r of tail.logs) r.context = {};
  tail.truncated.push('log contexts');
  serialize('tail');
  if (fits()) return done();
  tail.collectors = {};
  tail.truncated.push('collectors');
  tail.logs = tail.logs.slice(-100);
  tail.truncated.push('logs beyond the last 100');
  calls = calls.slice(500);
  serialize('tail');
  if (fits()) return done();
  head.request.query = {};
  head.request.body = {};
  head.request.attributes = {};
  head.session = head.session ? { ...head.session, attributes: {} } : null;
  tail.truncated.push('parameters');
  serialize('both');
  if (fits()) return done();
  // Still over: what is left is long text the application wrote (log messages of up to 8,192
  // characters, an exception chain of 32 with 16 KB stacks each), which no step above cuts. Cut it
  // short, so that the bound holds whatever the application logs or throws.
  for (const r of tail.logs) r.message = truncate(r.message, SHORT_TEXT);
  for (let e = tail.exception; e !== null; e = e.previous) {
    e.message = truncate(e.message, SHORT_TEXT);
    e.stack = truncate(e.stack, SHORT_TEXT * 2);
  }
  tail.truncated.push('long log messages and exception stacks');
  serialize('tail');
  return done();
}

/** Characters kept of a log message or exception message in the last cut (a stack keeps twice as many). */
const SHORT_TEXT = 512;
