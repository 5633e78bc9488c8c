/**
 * A profile as the stores keep it: serialized once, sized exactly, never re-serialized to be measured.
 *
 * A collected profile is mostly its listener calls (about 40 per request, two thirds of its bytes),
 * and those are the same few (hook, listener, role) strings every time. So a collected profile keeps:
 *
 * - the JSON of everything before `events` (`head`) and after `notCalledListeners` (`tail`): the
 *   request-specific, already masked data, as flat strings (nothing of the request stays reachable);
 * - its listener calls as references to shared call shapes plus their times in microseconds
 *   (integers), and its not-called listeners as references to shared entries.
 *
 * Its size in bytes is the exact UTF-8 length of its JSON (`json()`), computed from the two strings'
 * lengths and the shapes' cached sizes. The full JSON is only built when a profile is read or written
 * to disk.
 */
import type { HookName } from '../../kernel/events.ts';
import { summaryOf, type Profile, type ProfileSummary } from './profile.ts';

type NodeBufferLike = { byteLength(text: string, encoding: 'utf8'): number };
const NodeBuffer = (globalThis as { Buffer?: NodeBufferLike }).Buffer;
let encoder: TextEncoder | undefined;

/** UTF-8 length of a string, measured natively (`Buffer.byteLength`, else `TextEncoder`). */
export function utf8Length(s: string): number {
  if (NodeBuffer !== undefined && typeof NodeBuffer.byteLength === 'function') return NodeBuffer.byteLength(s, 'utf8');
  if (typeof TextEncoder !== 'undefined') {
    encoder ??= new TextEncoder();
    return encoder.encode(s).byteLength;
  }
  return utf8LengthJs(s);
}

/** The same without any host API (lone surrogates count 3 bytes, as U+FFFD, like the encoders). */
export function utf8LengthJs(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2;
      i++;
    } else n += 2;
  }
  return n;
}

/**
 * Length of `JSON.stringify(us / 1000)` for an integer number of microseconds `us` (a time in ms
 * rounded to the µs, as profiles keep it): the integer digits, then `.` and up to three decimals
 * without trailing zeros.
 */
export function msJsonLength(us: number): number {
  if (!Number.isFinite(us)) return 4; // null
  if (us >= 1e15 || us <= -1e15) return String(us / 1000).length;
  let n = 0;
  if (us < 0) {
    n = 1;
    us = -us;
  }
  const int = Math.floor(us / 1000);
  const frac = us - int * 1000;
  n += int < 10 ? 1 : int < 100 ? 2 : int < 1000 ? 3 : int < 10000 ? 4 : int < 100000 ? 5 : String(int).length;
  if (frac !== 0) n += frac % 100 === 0 ? 2 : frac % 10 === 0 ? 3 : 4;
  return n;
}

/** One listener of a hook as a profile lists it (shared between profiles: read-only). */
export interface CallShape {
  readonly hook: HookName;
  readonly listener: string;
  readonly role: string;
  /** `{"hook":…,"listener":…,"role":…,"startMs":,"durationMs":}` in bytes: a call's size without its two numbers. */
  readonly bytes: number;
  /** The same JSON up to `"startMs":`. */
  readonly prefix: string;
}

/** A not-called listener entry, exactly `{ hook, listener, role }` (shared between profiles: read-only). */
export interface NotCalledEntry {
  readonly hook: HookName;
  readonly listener: string;
  readonly role: string;
}

const MAX_SHAPES = 4096;
/** listener id → its shapes (usually one: the same id on one hook with one role). */
let shapes = new Map<string, CallShape[]>();
let shapeCount = 0;

/** The shared shape of a (hook, listener, role) call. */
export function callShape(hook: HookName, listener: string, role: string): CallShape {
  let list = shapes.get(listener);
  if (list !== undefined) {
    for (let i = 0; i < list.length; i++) {
      const s = list[i]!;
      if (s.hook === hook && s.role === role) return s;
    }
  }
  const prefix = `{"hook":${JSON.stringify(hook)},"listener":${JSON.stringify(listener)},"role":${JSON.stringify(role)},"startMs":`;
  const shape: CallShape = { hook, listener, role, prefix, bytes: utf8Length(prefix) + ',"durationMs":}'.length };
  if (shapeCount >= MAX_SHAPES) {
    shapes = new Map();
    shapeCount = 0;
    list = undefined;
  }
  if (list === undefined) shapes.set(listener, (list = []));
  list.push(shape);
  shapeCount++;
  return shape;
}

const notCalledBytes = new WeakMap<NotCalledEntry, number>();

/** JSON size of a not-called entry (cached per shared entry). */
export function notCalledEntryBytes(entry: NotCalledEntry): number {
  let n = notCalledBytes.get(entry);
  if (n === undefined) {
    n = utf8Length(JSON.stringify({ hook: entry.hook, listener: entry.listener, role: entry.role }));
    notCalledBytes.set(entry, n);
  }
  return n;
}

/** What the stores keep of a profile. */
export interface StoredProfile {
  readonly token: string;
  /** Exact UTF-8 length of `json()`. */
  readonly bytes: number;
  readonly summary: ProfileSummary;
  /** The profile's JSON, as `JSON.stringify(profile)` writes it. */
  json(): string;
}

/** A profile handed over as an object (tests, tools): serialized as it is. */
export class SerializedProfile implements StoredProfile {
  readonly token: string;
  readonly bytes: number;
  readonly summary: ProfileSummary;
  private readonly text: string;
  constructor(profile: Profile) {
    this.text = JSON.stringify(profile);
    this.token = profile.token;
    this.bytes = utf8Length(this.text);
    this.summary = summaryOf(profile, this.bytes);
  }
  json(): string {
    return this.text;
  }
}

/** The profile's keys before `events`, in order. */
export type ProfileHead = Omit<Profile, 'events' | 'notCalledListeners' | 'logs' | 'droppedLogs' | 'exception' | 'collectors' | 'truncated'>;
/** The profile's keys after `notCalledListeners`, in order. */
export type ProfileTail = Pick<Profile, 'logs' | 'droppedLogs' | 'exception' | 'collectors' | 'truncated'>;

/** `,"events":` + `,"notCalledListeners":` + `,`, less the `}` and `{` where head and tail are joined. */
const JOINT_BYTES = ',"events":'.length + ',"notCalledListeners":'.length + 1 - 2;

/**
 * The listener calls of a profile, compact: shapes (often one array shared by every request that
 * called the same listeners) and times in µs, start then duration per call.
 */
export class CallList {
  /** JSON size of the calls as an array. */
  readonly bytes: number;

  /**
   * `shapesBytes`: what `shapes` add to the JSON size (brackets, commas, shapes), as `shapesBytes()` says;
   * `timesBytes`: what the times add, the sum of their `msJsonLength()` (when the caller summed them already).
   */
  constructor(
    readonly shapes: readonly CallShape[],
    readonly times: readonly number[],
    shapesBytes: number = CallList.shapesBytes(shapes),
    timesBytes: number = CallList.timesBytes(times),
  ) {
    this.bytes = shapesBytes + timesBytes;
  }

  static timesBytes(times: readonly number[]): number {
    let n = 0;
    for (let i = 0; i < times.length; i++) n += msJsonLength(times[i]!);
    return n;
  }

  static shapesBytes(shapes: readonly CallShape[]): number {
    let n = 2 + Math.max(0, shapes.length - 1);
    for (let i = 0; i < shapes.length; i++) n += shapes[i]!.bytes;
    return n;
  }

  get length(): number {
    return this.shapes.length;
  }

  /** The first `n` calls. */
  slice(n: number): CallList {
    return n >= this.shapes.length ? this : new CallList(this.shapes.slice(0, n), this.times.slice(0, 2 * n));
  }

  json(): string {
    let s = '[';
    for (let i = 0; i < this.shapes.length; i++) {
      if (i > 0) s += ',';
      s += `${this.shapes[i]!.prefix}${JSON.stringify(this.times[2 * i]! / 1000)},"durationMs":${JSON.stringify(this.times[2 * i + 1]! / 1000)}}`;
    }
    return s + ']';
  }
}

export function notCalledListBytes(list: readonly NotCalledEntry[]): number {
  let n = 2 + Math.max(0, list.length - 1);
  for (let i = 0; i < list.length; i++) n += notCalledEntryBytes(list[i]!);
  return n;
}

/** A collected profile: head and tail serialized, calls and not-called listeners by reference. */
export class CollectedProfile implements StoredProfile {
  readonly bytes: number;
  readonly summary: ProfileSummary;
  constructor(
    readonly token: string,
    summary: ProfileSummary,
    private readonly head: string,
    private readonly calls: CallList,
    private readonly notCalled: readonly NotCalledEntry[],
    private readonly tail: string,
    headBytes: number,
    notCalledBytes: number,
    tailBytes: number,
  ) {
    this.bytes = splitProfileBytes(headBytes, calls.bytes, notCalledBytes, tailBytes);
    summary.bytes = this.bytes;
    this.summary = summary;
  }

  json(): string {
    return `${this.head.slice(0, -1)},"events":${this.calls.json()},"notCalledListeners":${JSON.stringify(this.notCalled)},${this.tail.slice(1)}`;
  }
}

/** Size of a profile split into head, calls, not-called listeners and tail. */
export function splitProfileBytes(headBytes: number, callsBytes: number, notCalledBytes: number, tailBytes: number): number {
  return headBytes + callsBytes + notCalledBytes + tailBytes + JOINT_BYTES;
}

export function isStoredProfile(value: Profile | StoredProfile): value is StoredProfile {
  return value instanceof SerializedProfile || value instanceof CollectedProfile;
}

/** What a store keeps of a profile it is handed. */
export function toStored(value: Profile | StoredProfile): StoredProfile {
  return isStoredProfile(value) ? value : new SerializedProfile(value);
}
