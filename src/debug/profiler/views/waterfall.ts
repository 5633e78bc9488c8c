/**
 * The performance panel's waterfall: one bar per listener call, grouped by hook, on one time axis
 * (SVG, no script). The controller's own time is drawn between the hooks that surround it.
 */
import type { Profile, ProfiledListenerCall } from '../profile.ts';
import { esc, formatMs } from './common.ts';

export const HOOK_COLORS: Record<string, string> = {
  'kernel.request': '#4f46e5',
  'kernel.controller': '#0891b2',
  'kernel.controller_arguments': '#0d9488',
  controller: '#16a34a',
  'kernel.view': '#ca8a04',
  'kernel.response': '#ea580c',
  'kernel.finish_request': '#9333ea',
  'kernel.exception': '#dc2626',
  'kernel.terminate': '#64748b',
};

/** A hook's colour; a hook of a stored profile named like an Object property (`constructor`) gets the default. */
function hookColor(hook: string): string {
  return Object.hasOwn(HOOK_COLORS, hook) ? HOOK_COLORS[hook]! : '#6b7280';
}

export interface WaterfallGroup {
  hook: string;
  calls: ProfiledListenerCall[];
  startMs: number;
  endMs: number;
}

/** Calls grouped by hook, groups in the order their hook was first called, calls in call order. */
export function groupByHook(events: ProfiledListenerCall[]): WaterfallGroup[] {
  const groups = new Map<string, WaterfallGroup>();
  for (const call of events) {
    let group = groups.get(call.hook);
    if (!group) groups.set(call.hook, (group = { hook: call.hook, calls: [], startMs: call.startMs, endMs: call.startMs + call.durationMs }));
    group.calls.push(call);
    group.startMs = Math.min(group.startMs, call.startMs);
    group.endMs = Math.max(group.endMs, call.startMs + call.durationMs);
  }
  return [...groups.values()];
}

/** The controller's span: from the end of kernel.controller_arguments to the next hook's first call. */
export function controllerSpan(events: ProfiledListenerCall[], controller: string | null): ProfiledListenerCall | null {
  let argsEnd = -1;
  let index = -1;
  events.forEach((c, i) => {
    if (c.hook === 'kernel.controller_arguments') {
      argsEnd = c.startMs + c.durationMs;
      index = i;
    }
  });
  if (index < 0) return null;
  const next = events.slice(index + 1).find((c) => c.hook !== 'kernel.controller_arguments');
  if (!next) return null;
  return { hook: 'kernel.controller_arguments', listener: controller ? `${controller}()` : 'controller', role: 'the controller', startMs: argsEnd, durationMs: Math.max(0, next.startMs - argsEnd) };
}

function niceStep(total: number, ticks: number): number {
  const raw = total / ticks;
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

/**
 * The largest of the values and `floor`, in a loop: `Math.max(...values)` throws a RangeError past
 * about 120,000 arguments, and a profile file in a shared directory may hold that many calls.
 */
export function largest(values: readonly number[], floor: number): number {
  let max = floor;
  for (const v of values) if (v > max) max = v;
  return max;
}

/**
 * At most this many ticks: niceStep's step gives nine at most. A hand-edited profile whose times sum
 * past Number.MAX_VALUE (an infinite step) or underflow to 0 (a zero step) would otherwise add ticks
 * for ever and hang the process on one page view.
 */
const MAX_TICKS = 12;

function axisLabel(ms: number, step: number): string {
  if (ms === 0) return '0';
  if (step >= 1000) return `${+(ms / 1000).toFixed(2)} s`;
  return `${+ms.toFixed(3)} ms`;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function renderWaterfall(profile: Profile): string {
  const events = profile.events;
  if (events.length === 0) return '<p class="pf-empty">No listener calls were traced for this request.</p>';
  const groups = groupByHook(events);
  const controller = controllerSpan(events, profile.controller);
  if (controller) {
    const at = groups.findIndex((g) => g.startMs >= controller.startMs + controller.durationMs - 1e-9 && g.hook !== 'kernel.request' && g.hook !== 'kernel.controller' && g.hook !== 'kernel.controller_arguments');
    const group: WaterfallGroup = { hook: 'controller', calls: [controller], startMs: controller.startMs, endMs: controller.startMs + controller.durationMs };
    groups.splice(at < 0 ? groups.length : at, 0, group);
  }
  let total = largest(events.map((c) => c.startMs + c.durationMs), profile.durationMs ?? 0);
  if (!(total > 0)) total = 1;

  const width = 1100;
  const labelWidth = 340;
  const right = 70;
  const plot = width - labelWidth - right;
  const rowH = 20;
  const groupH = 26;
  const top = 30;
  const x = (ms: number) => labelWidth + (Math.max(0, ms) / total) * plot;

  const parts: string[] = [];
  let y = top;
  for (const group of groups) {
    const color = hookColor(group.hook);
    const spanMs = group.endMs - group.startMs;
    parts.push(
      `<g class="pf-wf-group" data-hook="${esc(group.hook)}">` +
        `<rect x="0" y="${y}" width="${width}" height="${groupH}" fill="${color}" fill-opacity="0.07"/>` +
        `<rect x="${x(group.startMs).toFixed(1)}" y="${y + 4}" width="${Math.max(2, x(group.endMs) - x(group.startMs)).toFixed(1)}" height="${groupH - 8}" rx="3" fill="${color}" fill-opacity="0.18"/>` +
        `<text class="pf-wf-hook" x="10" y="${y + 17}" fill="${color}">${esc(group.hook === 'controller' ? 'controller' : group.hook)} · ${esc(formatMs(spanMs))}</text>` +
        `</g>`,
    );
    y += groupH;
    for (const call of group.calls) {
      const bx = x(call.startMs);
      const bw = Math.max(2, x(call.startMs + call.durationMs) - bx);
      const label = clip(call.listener, 44);
      const tip = `${call.hook === 'kernel.controller_arguments' && group.hook === 'controller' ? 'controller' : call.hook} — ${call.listener} (${call.role}): starts at ${formatMs(call.startMs)}, takes ${formatMs(call.durationMs)}`;
      const durX = Math.min(bx + bw + 6, width - right + 4);
      parts.push(
        `<g class="pf-wf-call"><title>${esc(tip)}</title>` +
          `<text x="22" y="${y + 14}">${esc(label)}</text>` +
          `<rect x="${bx.toFixed(1)}" y="${y + 4}" width="${bw.toFixed(1)}" height="${rowH - 8}" rx="2" fill="${color}"/>` +
          `<text class="pf-wf-dur" x="${durX.toFixed(1)}" y="${y + 14}">${esc(formatMs(call.durationMs))}</text>` +
          `</g>`,
      );
      y += rowH;
    }
  }
  const height = y + 10;

  const step = niceStep(total, 8);
  const axis: string[] = [];
  for (let i = 0, t = 0; i < MAX_TICKS && t <= total + 1e-9; i++, t = i * step) {
    const tx = x(t).toFixed(1);
    axis.push(`<line x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${height - 6}" stroke="#e5e7eb"/><text class="pf-wf-axis" x="${tx}" y="${top - 10}" text-anchor="middle">${esc(axisLabel(t, step))}</text>`);
  }
  const ready = x(profile.durationMs).toFixed(1);
  const readyLine =
    profile.durationMs > 0
      ? `<line x1="${ready}" y1="${top - 4}" x2="${ready}" y2="${height - 6}" stroke="#16a34a" stroke-dasharray="4 3"><title>Response ready at ${esc(formatMs(profile.durationMs))}</title></line>`
      : '';

  const legend = groups
    .map((g) => `<span><i style="background:${hookColor(g.hook)}"></i>${esc(g.hook)}</span>`)
    .join('');
  return (
    `<svg class="pf-waterfall" role="img" aria-label="Listener calls by hook over time" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" preserveAspectRatio="xMinYMin meet" xmlns="http://www.w3.org/2000/svg">` +
    axis.join('') +
    parts.join('') +
    readyLine +
    `</svg><div class="pf-legend">${legend}<span><i style="background:#16a34a"></i>dashed line: response ready</span></div>`
  );
}
