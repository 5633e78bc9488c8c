/**
 * What a stored profile holds (CONTRACT §6.2) and the one-line summary the store's index keeps per
 * profile. Profiles are plain JSON: they are written after the response, read back by the profiler
 * pages, and may cross processes through the file store.
 */
import type { HookName } from '../../kernel/events.ts';

/** Six lower-case hex characters; anything else never reaches a store (no path traversal possible). */
export const TOKEN_PATTERN = /^[0-9a-f]{6}$/;

export function isToken(value: unknown): value is string {
  return typeof value === 'string' && TOKEN_PATTERN.test(value);
}

const HEX: readonly string[] = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
/** Random bytes drawn in batches (one `getRandomValues` per 256 tokens), used three at a time. */
const pool = new Uint8Array(3 * 256);
let poolAt = pool.length;

/** A fresh random token (uniqueness within the store is the Profiler's job). */
export function randomToken(): string {
  if (poolAt + 3 > pool.length) {
    crypto.getRandomValues(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += 3;
  return HEX[pool[at]!]! + HEX[pool[at + 1]!]! + HEX[pool[at + 2]!]!;
}

/** What the index keeps per profile: enough to search and list without opening the profile. */
export interface ProfileSummary {
  token: string;
  ip: string;
  method: string;
  url: string;
  /** Unix time in seconds (as Symfony's profiles). */
  time: number;
  status: number;
  parent: string | null;
  /** Serialized size of the profile in bytes (the store's byte bound). */
  bytes?: number;
}

export interface ProfiledListenerCall {
  hook: HookName;
  listener: string;
  role: string;
  startMs: number;
  durationMs: number;
}

export interface ProfiledLogRecord {
  datetime: string;
  level: number;
  level_name: string;
  channel: string;
  /** Interpolated (placeholders filled), masked. */
  message: string;
  context: unknown;
}

export interface ProfiledException {
  class: string;
  message: string;
  status: number;
  file: string;
  line: number;
  stack: string;
  previous: ProfiledException | null;
}

export interface ProfiledCookie {
  name: string;
  /** Always masked. */
  value: string;
  attributes?: string;
}

export interface Profile {
  token: string;
  parent: string | null;
  children: string[];
  /**
   * Unix time in seconds when kernel.response reached the profiler (Symfony's Profiler::collect), not
   * when the profile was stored; `datetime` is the same instant as ISO 8601 with milliseconds.
   */
  time: number;
  datetime: string;
  ip: string;
  method: string;
  url: string;
  status: number;
  statusText: string;
  route: string | null;
  controller: string | null;
  /** Milliseconds from the request's start until the response was ready (kernel.response). */
  durationMs: number;
  /** Milliseconds from the request's start until the profile was collected (kernel.terminate). */
  totalMs: number;
  /** Resident set size in bytes when collected, when the runtime tells. */
  memory: number | null;
  request: {
    pathInfo: string;
    realMethod: string;
    scheme: string;
    host: string;
    locale: string | null;
    format: string | null;
    isXmlHttpRequest: boolean;
    query: Record<string, unknown>;
    body: Record<string, unknown>;
    attributes: Record<string, unknown>;
    headers: Record<string, string>;
    cookies: ProfiledCookie[];
    contentType: string;
    /** Raw body (masked), when it was read by the application; bounded. '' for multipart/form-data (requestContent says why). */
    content: string | null;
    contentLength: number;
    contentTruncated: boolean;
  };
  response: {
    headers: Record<string, string>;
    cookies: ProfiledCookie[];
    contentType: string | null;
  };
  session: {
    /** Masked. */
    id: string | null;
    started: boolean;
    attributes: Record<string, unknown>;
  } | null;
  security: {
    /** `irms_token`, masked. */
    token: unknown;
    memberId: unknown;
    firewall: string | null;
    authenticated: boolean;
    /**
     * The member's roles, `ROLE_USER` included (Symfony's panel: Roles); none for an anonymous request.
     * Absent from profiles stored before they were recorded.
     */
    roles?: string[];
    /**
     * The roles a role hierarchy gives the member beyond its own (Symfony's panel: Inherited roles); empty
     * without a hierarchy. Absent from profiles stored before they were recorded.
     */
    inheritedRoles?: string[];
    /**
     * Every access decision of the request, in order (Symfony's panel: Access decision log): the attributes
     * asked, the subject described in one line, and the verdict. At most 100. Absent as `roles`.
     */
    decisions?: { attributes: string[]; subject: string; granted: boolean }[];
    /** Decisions made past the 100 kept, counted. Absent as `roles`. */
    decisionsDropped?: number;
    /** How the member was authenticated (Symfony's panel: Token class); null when anonymous. Absent as `roles`. */
    authenticatedBy?: string | null;
  };
  routing: {
    route: string | null;
    params: Record<string, unknown>;
    controller: string | null;
    redirect: unknown;
  };
  events: ProfiledListenerCall[];
  notCalledListeners: { hook: HookName; listener: string; role: string }[];
  logs: ProfiledLogRecord[];
  droppedLogs: number;
  exception: ProfiledException | null;
  /** Anything else the data collectors gathered, masked and bounded. */
  collectors: Record<string, unknown>;
  /** Parts cut to keep the profile within its byte bound. */
  truncated: string[];
}

/**
 * No member: `member_id` absent, null, or '' — what every anonymous request that reaches its
 * controller records (CONTRACT §8.5). The collector and the views (security panel, toolbar) share
 * this rule, so an anonymous visitor reads the same whether or not the request reached a controller.
 */
export function isAnonymousMember(memberId: unknown): boolean {
  return memberId === undefined || memberId === null || memberId === '';
}

export function summaryOf(profile: Pick<Profile, 'token' | 'ip' | 'method' | 'url' | 'time' | 'status' | 'parent'>, bytes: number): ProfileSummary {
  return {
    token: profile.token,
    ip: profile.ip,
    method: profile.method,
    url: profile.url.length > 2000 ? profile.url.slice(0, 2000) : profile.url,
    time: profile.time,
    status: profile.status,
    parent: profile.parent,
    bytes,
  };
}
