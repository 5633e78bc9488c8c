/** IP and CIDR matching for trusted proxies, IPv4 and IPv6, without regexes built from input. */

function parseV4(ip: string): number[] | null {
  const parts = ip.split('.');
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out.push(n);
  }
  return out;
}

function parseV6(ip: string): number[] | null {
  let s = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.') && lastColon >= 0) {
    const v4 = parseV4(s.slice(lastColon + 1));
    if (!v4) return null;
    tail = [(v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]];
    // Keep a trailing '::' (it is the compression); drop a single separating ':'.
    s = s.slice(0, lastColon + 1);
    if (!s.endsWith('::')) s = s.slice(0, -1);
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (h: string) => (h === '' ? [] : h.split(':'));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const words: number[] = [];
  for (const g of [...head, ...rest]) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
  }
  const total = head.length + rest.length + tail.length;
  if (halves.length === 1 && total !== 8) return null;
  if (total > 8) return null;
  for (const g of head) words.push(parseInt(g, 16));
  if (halves.length === 2) for (let i = 0; i < 8 - total; i++) words.push(0);
  for (const g of rest) words.push(parseInt(g, 16));
  words.push(...tail);
  if (words.length !== 8) return null;
  const bytes: number[] = [];
  for (const w of words) bytes.push(w >> 8, w & 255);
  return bytes;
}

/** Bytes of an address (4 for IPv4, 16 for IPv6; IPv4-mapped IPv6 folds to IPv4), or null. */
export function ipBytes(ip: string): number[] | null {
  const v4 = parseV4(ip);
  if (v4) return v4;
  const v6 = parseV6(ip);
  if (!v6) return null;
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 255 && v6[11] === 255;
  return mapped ? v6.slice(12) : v6;
}

export function isIp(value: string): boolean {
  return ipBytes(value) !== null;
}

/** A compiled list of trusted addresses and networks. `REMOTE_ADDR` trusts the direct peer, as Symfony. */
export class IpMatcher {
  private readonly nets: { bytes: number[]; bits: number }[] = [];
  readonly trustsPeer: boolean;

  constructor(entries: string[]) {
    let peer = false;
    for (const raw of entries) {
      const entry = raw.trim();
      if (!entry) continue;
      if (entry === 'REMOTE_ADDR') {
        peer = true;
        continue;
      }
      const slash = entry.indexOf('/');
      const bytes = ipBytes(slash < 0 ? entry : entry.slice(0, slash));
      if (!bytes) throw new Error(`Invalid trusted proxy "${entry}".`);
      // Decimal digits only: Number('') is 0 (`10.0.0.0/` would trust every peer), and '0x8' or '1e1' are numbers too.
      const prefix = entry.slice(slash + 1);
      if (slash >= 0 && !/^[0-9]{1,3}$/.test(prefix)) throw new Error(`Invalid trusted proxy "${entry}".`);
      const bits = slash < 0 ? bytes.length * 8 : Number(prefix);
      if (!Number.isInteger(bits) || bits < 0 || bits > bytes.length * 8) throw new Error(`Invalid trusted proxy "${entry}".`);
      this.nets.push({ bytes, bits });
    }
    this.trustsPeer = peer;
  }

  get isEmpty(): boolean {
    return this.nets.length === 0 && !this.trustsPeer;
  }

  matches(ip: string): boolean {
    const bytes = ipBytes(ip);
    if (!bytes) return false;
    for (const net of this.nets) {
      if (net.bytes.length !== bytes.length) continue;
      let bits = net.bits;
      let ok = true;
      for (let i = 0; bits > 0; i++, bits -= 8) {
        const mask = bits >= 8 ? 255 : (255 << (8 - bits)) & 255;
        if ((bytes[i] & mask) !== (net.bytes[i] & mask)) {
          ok = false;
          break;
        }
      }
      if (ok) return true;
    }
    return false;
  }
}
