import { EgressError } from './errors.ts';

/**
 * Egress policy: which URLs and which resolved addresses an outbound request may reach.
 * Pure functions, no I/O. The default refuses every address that is not public unicast;
 * `allow` entries (MIMIC_EGRESS_ALLOW) only ever widen it:
 *  - a host name in `allow` may resolve to any address (e.g. a private service name);
 *  - an address literal in `allow` permits exactly that address, however it was reached.
 */

// ---------------------------------------------------------------- address parsing

/**
 * IPv4 in every form `inet_aton` accepts: 1 to 4 parts, each decimal, octal (leading 0) or
 * hex (0x); the last part fills the remaining bytes (`127.1`, `2130706433`, `0x7f.1`).
 * WHATWG URL parsing already normalizes these in http(s) hosts; resolvers and allow lists
 * may still hand us one, so we never compare such strings textually.
 */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const values: number[] = [];
  for (const part of parts) {
    let value: number;
    if (/^0x[0-9a-f]*$/i.test(part)) value = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) value = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) value = Number(part);
    else return null;
    if (!Number.isSafeInteger(value)) return null;
    values.push(value);
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255)) return null;
  if (last >= 256 ** (4 - values.length)) return null;
  let result = 0;
  values.forEach((v, i) => (result += v * 256 ** (3 - i)));
  return result + last;
}

/** IPv6 text (brackets and a `%zone` tolerated) to 16 bytes, or null. */
export function parseIPv6(text: string): Uint8Array | null {
  let s = text;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return null;
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (half: string): number[] | null => {
    if (half === '') return [];
    const out: number[] = [];
    const items = half.split(':');
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (i === items.length - 1 && item.includes('.')) {
        if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(item)) return null;
        const octets = item.split('.').map(Number);
        if (octets.some((o) => o > 255)) return null;
        out.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
      } else {
        if (!/^[0-9a-f]{1,4}$/i.test(item)) return null;
        out.push(parseInt(item, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return null;
  let all: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return null;
    all = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else {
    all = head;
  }
  if (all.length !== 8) return null;
  const bytes = new Uint8Array(16);
  all.forEach((g, i) => {
    bytes[i * 2] = g >> 8;
    bytes[i * 2 + 1] = g & 0xff;
  });
  return bytes;
}

export type ParsedIp = { version: 4; value: number } | { version: 6; bytes: Uint8Array };

export function parseIp(text: string): ParsedIp | null {
  const v6 = parseIPv6(text);
  if (v6) return { version: 6, bytes: v6 };
  const v4 = parseIPv4(text);
  return v4 === null ? null : { version: 4, value: v4 };
}

const v4ToString = (v: number): string => [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');

/** One spelling per address, for comparing against allow entries. */
export function canonicalIp(text: string): string | null {
  const ip = parseIp(text);
  if (!ip) return null;
  if (ip.version === 4) return v4ToString(ip.value);
  return Buffer.from(ip.bytes).toString('hex').replace(/(.{4})(?!$)/g, '$1:');
}

// ---------------------------------------------------------------- address classes

/**
 * Where a non-public address lies. `private` (RFC 1918, CGNAT, unique local) and `loopback`
 * are networks an operator may run its own services or clients on; `special` is everything
 * else refused (link-local and the metadata services on it, this-network, multicast,
 * broadcast, reserved, documentation, and the NAT64/6to4/compatible spellings of any
 * non-public IPv4 address): no destination a caller needs.
 */
export type AddressScope = 'private' | 'loopback' | 'special';

export interface AddressClass {
  /** Why the address is not public: 'loopback', 'link-local', 'IPv4-mapped private'... */
  label: string;
  scope: AddressScope;
}

type V4Range = readonly [base: string, bits: number, label: string, scope: AddressScope];

/** Everything here is refused; the rest of IPv4 is public unicast. */
const V4_REFUSED: readonly V4Range[] = [
  ['0.0.0.0', 8, 'this-network', 'special'],
  ['10.0.0.0', 8, 'private', 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT)', 'private'],
  ['127.0.0.0', 8, 'loopback', 'loopback'],
  ['169.254.0.0', 16, 'link-local', 'special'],
  ['172.16.0.0', 12, 'private', 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments', 'special'],
  ['192.0.2.0', 24, 'documentation', 'special'],
  ['192.88.99.0', 24, '6to4 relay anycast', 'special'],
  ['192.168.0.0', 16, 'private', 'private'],
  ['198.18.0.0', 15, 'benchmarking', 'special'],
  ['198.51.100.0', 24, 'documentation', 'special'],
  ['203.0.113.0', 24, 'documentation', 'special'],
  ['224.0.0.0', 4, 'multicast', 'special'],
  ['240.0.0.0', 4, 'reserved', 'special'],
];

const V4_TABLE = V4_REFUSED.map(([base, bits, label, scope]) => {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return { net: (parseIPv4(base)! & mask) >>> 0, mask, class: { label, scope } satisfies AddressClass };
});

function classifyV4(value: number): AddressClass | null {
  for (const r of V4_TABLE) if (((value & r.mask) >>> 0) === r.net) return r.class;
  return null;
}

/** Whether the first `bits` bits of `bytes` are those of `prefix`. */
export function hasPrefix(bytes: Uint8Array, prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const bit = 7 - (i & 7);
    if (((bytes[byte]! >> bit) & 1) !== (((prefix[byte] ?? 0) >> bit) & 1)) return false;
  }
  return true;
}

const embeddedV4 = (bytes: Uint8Array, at: number): number =>
  ((bytes[at]! << 24) | (bytes[at + 1]! << 16) | (bytes[at + 2]! << 8) | bytes[at + 3]!) >>> 0;

/** The IPv4 address an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) reaches, else null. */
export function mappedV4(bytes: Uint8Array): number | null {
  return bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff ? embeddedV4(bytes, 12) : null;
}

/** IPv6 ranges refused outright, checked after the forms that embed an IPv4 address. */
const V6_REFUSED: readonly [prefix: number[], bits: number, label: string, scope: AddressScope][] = [
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, 'local-use NAT64', 'special'],
  [[0x01, 0x00], 64, 'discard-only', 'special'],
  [[0x20, 0x01, 0x00, 0x00], 23, 'IETF protocol assignments (Teredo, benchmarking, ORCHID)', 'special'],
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'documentation', 'special'],
  [[0x3f, 0xff], 20, 'documentation', 'special'],
  [[0xfc], 7, 'unique local', 'private'],
  [[0xfe, 0x80], 10, 'link-local', 'special'],
  [[0xfe, 0xc0], 10, 'site-local', 'special'],
  [[0xff], 8, 'multicast', 'special'],
];

const special = (label: string): AddressClass => ({ label, scope: 'special' });

function classifyV6(bytes: Uint8Array): AddressClass | null {
  const zeros = (n: number) => bytes.subarray(0, n).every((b) => b === 0);
  // ::ffff:a.b.c.d (IPv4-mapped): the OS connects to the IPv4 address itself.
  const mapped = mappedV4(bytes);
  if (mapped !== null) {
    const inner = classifyV4(mapped);
    return inner && { label: `IPv4-mapped ${inner.label}`, scope: inner.scope };
  }
  if (zeros(16)) return special('unspecified');
  if (zeros(15) && bytes[15] === 1) return { label: 'loopback', scope: 'loopback' };
  // ::a.b.c.d (IPv4-compatible, deprecated) and ::ffff:0:a.b.c.d (IPv4-translated): refused whole.
  if (zeros(12)) return special('IPv4-compatible');
  if (zeros(8) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0) return special('IPv4-translated');
  // 64:ff9b::a.b.c.d (well-known NAT64 prefix): a gateway forwards to the IPv4 address.
  if (hasPrefix(bytes, [0x00, 0x64, 0xff, 0x9b], 96)) {
    const inner = classifyV4(embeddedV4(bytes, 12));
    return inner && special(`NAT64 ${inner.label}`);
  }
  // 2002:a.b.c.d::/48 (6to4): a relay forwards to the IPv4 address.
  if (hasPrefix(bytes, [0x20, 0x02], 16)) {
    const inner = classifyV4(embeddedV4(bytes, 2));
    return inner && special(`6to4 ${inner.label}`);
  }
  for (const [prefix, bits, label, scope] of V6_REFUSED) if (hasPrefix(bytes, prefix, bits)) return { label, scope };
  // Only global unicast 2000::/3 is public; everything else is reserved.
  if (!hasPrefix(bytes, [0x20], 3)) return special('reserved');
  return null;
}

/**
 * The class of a non-public address, or null when it is public unicast. Text that is not
 * an address is 'not an address' (special). The one classifier of outbound requests and of
 * the ICE candidates live streams may contact (src/streams/ice-policy.ts).
 */
export function classOf(address: string): AddressClass | null {
  const ip = parseIp(address);
  if (!ip) return special('not an address');
  return ip.version === 4 ? classifyV4(ip.value) : classifyV6(ip.bytes);
}

/**
 * Why an address may not be reached by default ('loopback', 'private', ...), or null when
 * it is public unicast. Text that is not an address is refused as 'not an address'.
 */
export function refusalOf(address: string): string | null {
  return classOf(address)?.label ?? null;
}

// ---------------------------------------------------------------- URLs

export interface EgressTarget {
  url: URL;
  /** Lowercase host without brackets or a trailing dot: what DNS, SNI and allow see. */
  host: string;
  port: number;
  /** The canonical address when the host is an IP literal. */
  literal: string | null;
}

/** Parses and vets a URL: http(s) only, no user info, a host present. Never echoes the URL. */
export function parseEgressUrl(raw: string): EgressTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EgressError('bad_url', 'the URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressError('scheme', `the URL scheme "${url.protocol.slice(0, 20)}" is not allowed (http and https only)`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new EgressError('credentials_in_url', `the URL for host ${url.hostname} carries credentials, which are not allowed`);
  }
  let host = url.hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '' || host.endsWith('.')) throw new EgressError('bad_url', 'the URL has no valid host');
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const looksLikeIp = host.includes(':') || /^[0-9a-fx.]+$/i.test(host);
  const literal = looksLikeIp ? canonicalIp(host) : null;
  return { url, host, port, literal };
}

// ---------------------------------------------------------------- policy

export interface EgressPolicy {
  /** The host name itself is in the allow list: any address it resolves to may be reached. */
  isHostAllowed(host: string): boolean;
  /** Null when `address` (reached for `host`) may be connected to, else why not. */
  refusal(host: string, address: string): string | null;
}

export function createEgressPolicy(allow: readonly string[]): EgressPolicy {
  const names = new Set<string>();
  const addresses = new Set<string>();
  for (const entry of allow) {
    let e = entry.trim().toLowerCase();
    if (e.startsWith('[') && e.endsWith(']')) e = e.slice(1, -1);
    if (e.endsWith('.')) e = e.slice(0, -1);
    if (!e) continue;
    const ip = e.includes(':') || /^[0-9a-fx.]+$/.test(e) ? canonicalIp(e) : null;
    if (ip) addresses.add(ip);
    else names.add(e);
  }
  const isHostAllowed = (host: string): boolean => names.has(host.toLowerCase().replace(/\.$/, ''));
  return {
    isHostAllowed,
    refusal(host, address) {
      if (isHostAllowed(host)) return null;
      const canonical = canonicalIp(address);
      if (canonical && addresses.has(canonical)) return null;
      return refusalOf(address);
    },
  };
}
