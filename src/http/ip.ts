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

/** Bytes of an address as written: 4 for IPv4, 16 for IPv6 (IPv4-mapped ones included), or null. */
function addressBytes(ip: string): number[] | null {
  return parseV4(ip) ?? parseV6(ip);
}

/** Whether 16 address bytes are an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`). */
function isMapped(bytes: number[]): boolean {
  return bytes.length === 16 && bytes[10] === 255 && bytes[11] === 255 && bytes.slice(0, 10).every((b) => b === 0);
}

/**
 * Whether `value` is an address as PHP's filter_var(FILTER_VALIDATE_IP) accepts one, which Symfony's
 * Request::normalizeAndFilterClientIps asks of each forwarded address: dotted decimal IPv4 without
 * leading zeros, IPv6 without brackets or a zone (`fe80::1%eth0` is refused, so a forwarded value cannot
 * carry text after a `%` into getClientIp). ext/filter/logical_filters.c, php_filter_validate_ip.
 */
export function isIp(value: string): boolean {
  if (value.indexOf(':') >= 0) return isFilterIpv6(value);
  return value.indexOf('.') >= 0 && isFilterIpv4(value);
}

const DOTTED_OCTET = /^(?:0|[1-9][0-9]{0,2})$/;

/** _php_filter_validate_ipv4: four decimal octets, 0–255, no leading zero (it would read as octal). */
function isFilterIpv4(value: string): boolean {
  const parts = value.split('.');
  return parts.length === 4 && parts.every((p) => DOTTED_OCTET.test(p) && Number(p) <= 255);
}

const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/**
 * _php_filter_validate_ipv6: hex groups of 1–4 digits, at most one `::` standing for at least one
 * group, an optional dotted IPv4 tail counting as two groups; nothing else (no brackets, no zone).
 */
function isFilterIpv6(value: string): boolean {
  let s = value;
  let groups = 0;
  const dot = s.indexOf('.');
  if (dot >= 0) {
    const tailStart = s.lastIndexOf(':', dot) + 1;
    if (!isFilterIpv4(s.slice(tailStart)) || tailStart < 2) return false;
    // The ':' before the tail belongs to it unless it is the second of a '::'.
    s = s.slice(0, s[tailStart - 2] === ':' ? tailStart : tailStart - 1);
    groups = 2;
  }
  const halves = s.split('::');
  if (halves.length > 2) return false;
  for (const half of halves) {
    if (half === '') continue;
    for (const group of half.split(':')) {
      if (!HEX_GROUP.test(group)) return false;
      groups++;
    }
  }
  return halves.length === 2 ? groups < 8 : groups === 8;
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
      // An IPv6 entry stays a 16-byte network, IPv4-mapped ones too (`::ffff:10.0.0.0/104`), as IpUtils reads it.
      const bytes = addressBytes(slash < 0 ? entry : entry.slice(0, slash));
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

  /**
   * Whether `ip` is in a trusted network. IPv4 and IPv6 networks are apart, as in IpUtils (`::/0` holds
   * no `1.2.3.4`, `0.0.0.0/0` no `::1`), with one addition: an IPv4-mapped address (`::ffff:10.0.0.1`,
   * what a dual-stack listener reports for an IPv4 peer) is also in the IPv4 networks holding its IPv4
   * address. IPv6 networks compare all 16 bytes, so `::ffff:10.0.0.0/104` holds `::ffff:10.0.0.1`.
   */
  matches(ip: string): boolean {
    const bytes = addressBytes(ip);
    if (!bytes) return false;
    const asIpv4 = isMapped(bytes) ? bytes.slice(12) : null;
    for (const net of this.nets) {
      const address = net.bytes.length === bytes.length ? bytes : net.bytes.length === 4 ? asIpv4 : null;
      if (address !== null && inNetwork(address, net)) return true;
    }
    return false;
  }
}

function inNetwork(address: number[], net: { bytes: number[]; bits: number }): boolean {
  let bits = net.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 255 : (255 << (8 - bits)) & 255;
    if ((address[i] & mask) !== (net.bytes[i] & mask)) return false;
  }
  return true;
}
