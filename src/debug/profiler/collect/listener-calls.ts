/**
 * The profile's listener calls (bounded) and the listeners the request did not call. The per-table
 * index and the last few call sequences are remembered across requests (module state here), so a
 * request that repeats a route's sequence costs a comparison, not a rebuild.
 */
import type { AppServices } from '../../../app/services.ts';
import type { Listener, ListenerCall } from '../../../kernel/hooks.ts';
import { HOOKS, type HookName } from '../../../kernel/events.ts';
import { CallList, callShape, msJsonLength, notCalledListBytes, type CallShape, type NotCalledEntry } from '../stored.ts';
import { PROFILE_LIMITS } from './limits.ts';

/** When the response was handed over: the end of the last listener call before kernel.terminate. */
export function responseReadyMs(trace: readonly ListenerCall[] | null, atProfiler: number): number {
  let end = atProfiler;
  for (const c of trace ?? []) if (c.hook !== 'kernel.terminate') end = Math.max(end, c.startMs + c.durationMs);
  return end;
}

/**
 * Per hook table: which (hook, listener id) pairs exist, numbered, and the not-called entries in
 * table order (shared by every profile). Rebuilt when a hook's listener array changes.
 */
interface ListenerIndex {
  lists: (readonly Listener[])[];
  lengths: number[];
  /** hook → listener id → slot. */
  slots: Map<string, Map<string, number>>;
  /** In table order (kernel.terminate left out: it is still running while the profile is collected). */
  entries: { slot: number; entry: NotCalledEntry }[];
  slotCount: number;
  /** The last few call sequences seen with this table. */
  signatures: TraceSignature[];
  nextSignature: number;
}

const listenerIndexes = new WeakMap<object, ListenerIndex>();
const NOT_CALLED_LIMIT = 500;
const EMPTY: readonly Listener[] = [];

function listenerIndex(hooks: Record<string, readonly Listener[] | undefined>): ListenerIndex {
  const cached = listenerIndexes.get(hooks);
  if (cached) {
    let valid = true;
    for (let i = 0; i < HOOKS.length && valid; i++) {
      const list = hooks[HOOKS[i]!] ?? EMPTY;
      valid = list === cached.lists[i] && list.length === cached.lengths[i];
    }
    if (valid) return cached;
  }
  const index: ListenerIndex = { lists: [], lengths: [], slots: new Map(), entries: [], slotCount: 0, signatures: [], nextSignature: 0 };
  for (const hook of HOOKS) {
    const list = hooks[hook] ?? EMPTY;
    index.lists.push(list);
    index.lengths.push(list.length);
    const slots = new Map<string, number>();
    index.slots.set(hook, slots);
    for (const l of list) {
      let slot = slots.get(l.id);
      if (slot === undefined) slots.set(l.id, (slot = index.slotCount++));
      if (hook !== 'kernel.terminate') index.entries.push({ slot, entry: { hook: hook as HookName, listener: l.id, role: l.role } });
    }
  }
  listenerIndexes.set(hooks, index);
  return index;
}

/** Listeners of the table (but kernel.terminate's) that the trace never called, in table order. */
function notCalledIn(index: ListenerIndex | null, trace: readonly ListenerCall[] | null): NotCalledEntry[] {
  if (!index) return [];
  const marks = new Uint8Array(index.slotCount);
  if (trace) {
    for (let i = 0; i < trace.length; i++) {
      const slot = index.slots.get(trace[i]!.hook)?.get(trace[i]!.listener);
      if (slot !== undefined) marks[slot] = 1;
    }
  }
  const out: NotCalledEntry[] = [];
  for (const { slot, entry } of index.entries) {
    if (marks[slot] === 0) {
      out.push(entry);
      if (out.length >= NOT_CALLED_LIMIT) break;
    }
  }
  return out;
}

/**
 * What a sequence of listener calls gives a profile besides its times: the call shapes and the
 * listeners not called. Requests to the same route call the same listeners, so the last few
 * sequences are remembered and a request that repeats one only compares its calls with it.
 */
interface TraceSignature {
  hooks: string[];
  listeners: string[];
  roles: string[];
  shapes: CallShape[];
  shapesBytes: number;
  notCalled: NotCalledEntry[];
  notCalledBytes: number;
}

const SIGNATURES = 8;

function sameCalls(sig: TraceSignature, trace: readonly ListenerCall[]): boolean {
  if (sig.listeners.length !== trace.length) return false;
  for (let i = 0; i < trace.length; i++) {
    const c = trace[i]!;
    if (c.listener !== sig.listeners[i] || c.hook !== sig.hooks[i] || c.role !== sig.roles[i]) return false;
  }
  return true;
}

function signatureOf(index: ListenerIndex | null, trace: readonly ListenerCall[]): TraceSignature {
  if (index) for (let i = 0; i < index.signatures.length; i++) if (sameCalls(index.signatures[i]!, trace)) return index.signatures[i]!;
  const shapes = trace.slice(0, PROFILE_LIMITS.events).map((c) => callShape(c.hook, c.listener, c.role));
  const notCalled = notCalledIn(index, trace);
  const sig: TraceSignature = {
    hooks: trace.map((c) => c.hook),
    listeners: trace.map((c) => c.listener),
    roles: trace.map((c) => c.role),
    shapes,
    shapesBytes: CallList.shapesBytes(shapes),
    notCalled,
    notCalledBytes: notCalledListBytes(notCalled),
  };
  // Long traces (a loop of sub-requests) are not worth remembering.
  if (index && trace.length <= 512) {
    index.signatures[index.nextSignature] = sig;
    index.nextSignature = (index.nextSignature + 1) % SIGNATURES;
  }
  return sig;
}

/** The profile's listener calls (bounded) and the listeners it did not call. */
export function listenerCalls(services: AppServices, trace: readonly ListenerCall[] | null): { calls: CallList; notCalled: NotCalledEntry[]; notCalledBytes: number } {
  const hooks = services.kernel?.hooks as Record<string, readonly Listener[] | undefined> | undefined;
  const index = hooks ? listenerIndex(hooks) : null;
  const sig = signatureOf(index, trace ?? []);
  const n = sig.shapes.length;
  const times: number[] = new Array(2 * n);
  let timesBytes = 0;
  for (let i = 0; i < n; i++) {
    const c = trace![i]!;
    const start = Math.round(c.startMs * 1000);
    const duration = Math.round(c.durationMs * 1000);
    times[2 * i] = start;
    times[2 * i + 1] = duration;
    timesBytes += msJsonLength(start) + msJsonLength(duration);
  }
  return { calls: new CallList(sig.shapes, times, sig.shapesBytes, timesBytes), notCalled: sig.notCalled, notCalledBytes: sig.notCalledBytes };
}
