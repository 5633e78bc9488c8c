/**
 * HTML escaping with exactly `he.escape`'s output (`"` `&` `'` `<` `>` and the backtick), without a
 * replace callback per character: text without any of them (most of it) is returned as it is.
 */
const SPECIAL = /["&'<>`]/;

export function escapeHtml(text: string): string {
  if (!SPECIAL.test(text)) return text;
  let out = '';
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    let entity: string;
    switch (text.charCodeAt(i)) {
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
      default:
        continue;
    }
    if (i > last) out += text.slice(last, i);
    out += entity;
    last = i + 1;
  }
  return last < text.length ? out + text.slice(last) : out;
}
