import { escapeHtml, hasBeyondLatin1, oneByteCopy } from './escape.ts';

/**
 * A small TypeScript/JavaScript highlighter for code excerpts: one pass of a sticky tokenizer over
 * each line, every token escaped (escape.ts) before it is wrapped. Good enough for eleven lines of
 * context; block comments and template literals that span lines are carried from line to line.
 */

const KEYWORDS = new Set(
  (
    'abstract as async await break case catch class const continue debugger declare default delete do else enum export extends ' +
    'finally for from function get if implements import in instanceof interface keyof let new of override private protected ' +
    'public readonly return satisfies set static super switch this throw try type typeof var void while with yield'
  ).split(' '),
);
const LITERALS = new Set(['true', 'false', 'null', 'undefined', 'NaN', 'Infinity']);

const TOKEN = /\/\/.*|\/\*[\s\S]*?(?:\*\/|$)|'(?:\\.|[^'\\])*'?|"(?:\\.|[^"\\])*"?|`(?:\\.|[^`\\])*`?|\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?n?\b|0x[\da-f_]+n?|[A-Za-z_$][\w$]*|\s+|./giy;

export type HighlightState = { inComment: boolean; inTemplate: boolean };

/**
 * Highlighted, escaped HTML of one line; `state` carries open comments/templates to the next line.
 * A line with a character beyond U+00FF (escaped as a reference) is cut into tokens that V8 stores
 * two bytes per character, even those that need one: its HTML is copied into one-byte form, or the
 * whole page would be stored two bytes per character (escape.ts).
 */
export function highlightLine(line: string, state: HighlightState): string {
  const html = highlightTokens(line, state);
  return hasBeyondLatin1(line) ? oneByteCopy(html) : html;
}

function highlightTokens(line: string, state: HighlightState): string {
  let out = '';
  let rest = line;
  if (state.inComment) {
    const end = rest.indexOf('*/');
    if (end < 0) return span('c', rest);
    out += span('c', rest.slice(0, end + 2));
    rest = rest.slice(end + 2);
    state.inComment = false;
  } else if (state.inTemplate) {
    const end = findTemplateEnd(rest);
    if (end < 0) return span('s', rest);
    out += span('s', rest.slice(0, end + 1));
    rest = rest.slice(end + 1);
    state.inTemplate = false;
  }
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  let prevWord = '';
  while (TOKEN.lastIndex < rest.length && (m = TOKEN.exec(rest))) {
    const t = m[0];
    const c = t[0];
    if (t.startsWith('//')) out += span('c', t);
    else if (t.startsWith('/*')) {
      out += span('c', t);
      if (!t.endsWith('*/') || t.length < 4) state.inComment = true;
    } else if (c === '"' || c === "'") out += span('s', t);
    else if (c === '`') {
      out += span('s', t);
      if (t.length === 1 || !t.endsWith('`') || t.endsWith('\\`')) state.inTemplate = true;
    } else if (/[0-9]/.test(c)) out += span('n', t);
    else if (/[A-Za-z_$]/.test(c)) {
      const next = rest.slice(TOKEN.lastIndex).trimStart()[0];
      if (KEYWORDS.has(t)) out += span('k', t);
      else if (LITERALS.has(t)) out += span('n', t);
      else if (next === '(' || prevWord === 'function') out += span('f', t);
      else if (/^[A-Z]/.test(t)) out += span('t', t);
      else out += escapeHtml(t);
      prevWord = t;
      continue;
    } else out += escapeHtml(t);
    if (!/^\s+$/.test(t)) prevWord = '';
  }
  return out;
}

function findTemplateEnd(s: string): number {
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '`') return i;
  }
  return -1;
}

function span(kind: string, text: string): string {
  return `<span class="hl-${kind}">${escapeHtml(text)}</span>`;
}
