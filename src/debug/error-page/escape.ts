/**
 * HTML escaping with `he.escape`'s output (`"` `&` `'` `<` `>` and the backtick), without a replace
 * callback per character: text without any of them (most of it) is returned as it is.
 *
 * One difference: a character beyond ASCII is written as a numeric character reference (`é` →
 * `&#xE9;`, `…` → `&#x2026;`; a surrogate pair as its one code point). The browser shows the same
 * text, and the page stays ASCII, stored one byte per character. Why: V8 stores a string two bytes
 * per character as soon as one character needs it, and so is every string concatenated from it. One
 * ellipsis in a source comment, shown in every 404's code excerpt, made the whole 52 KB debug page two
 * bytes per character: twice the copying, and its UTF-8 encoding 32 µs instead of 3. A Latin-1
 * character (`é` in a comment) keeps the page one-byte but still costs the encoding: the host can no
 * longer copy an ASCII string as it is (a debug 404 over HTTP took some 60 µs more).
 */
const SPECIAL = /["&'<>`]|[^\x00-\x7f]/;
const BEYOND_LATIN1 = /[^\x00-\xff]/;

export function escapeHtml(text: string): string {
  if (!SPECIAL.test(text)) return text;
  let out = '';
  let last = 0;
  let wide = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    let entity: string;
    let width = 1;
    switch (code) {
      case 34:
        entity = '&quot;';
        break;
      case 38:
        entity = '&amp;';
        break;
      case 39:
        entity = '&#x27;';
        break;
      case 60:
        entity = '&lt;';
        break;
      case 62:
        entity = '&gt;';
        break;
      case 96:
        entity = '&#x60;';
        break;
      default: {
        if (code < 0x80) continue;
        if (code > 0xff) wide = true;
        const point = text.codePointAt(i)!;
        if (point > 0xffff) width = 2;
        entity = `&#x${point.toString(16).toUpperCase()};`;
      }
    }
    if (i > last) out += text.slice(last, i);
    out += entity;
    last = i + width;
    i += width - 1;
  }
  if (last < text.length) out += text.slice(last);
  return wide ? oneByteCopy(out) : out;
}

/**
 * The same text stored one byte per character. Pieces sliced from a two-byte string stay two-byte
 * even when every character they hold fits in one; a string JSON.parse makes is stored in the
 * smallest form. Only for text without characters beyond U+00FF (the caller's to ensure).
 */
export function oneByteCopy(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** True when `text` has a character that makes V8 store it two bytes per character. */
export function hasBeyondLatin1(text: string): boolean {
  return BEYOND_LATIN1.test(text);
}
