/**
 * Which remote ICE candidates a stream's peer may send to (SECURITY.md, "ICE policy"). A
 * client names the addresses mimic's STUN checks go to, on ports it picks: unchecked, that
 * is a UDP probe of mimic's own network (metadata at 169.254.169.254, private services).
 *
 * One classifier decides, the egress policy's (src/egress/policy.ts): public unicast may be
 * contacted; `special` addresses (link-local and the metadata services on it, unspecified,
 * multicast, broadcast, reserved, documentation, the NAT64/6to4 spellings of non-public
 * IPv4) never, whatever MIMIC_ICE_ALLOW says; private ranges and loopback only where
 * MIMIC_ICE_ALLOW lists them. A candidate that is not an IP literal (an mDNS `.local` name,
 * any DNS name) is refused: resolving it is itself traffic (werift would multicast an mDNS
 * query on mimic's LAN), and its answer could be anything.
 */
import { isIP } from 'node:net';
import { ConfigurationError } from '../config.ts';
import { classOf, hasPrefix, mappedV4, parseIp, type AddressScope } from '../egress/index.ts';

export interface IcePolicy {
  /** Null when mimic may send to a remote candidate whose address is `host`; else why not: a class ('link-local', 'private', 'mDNS name'), never the address. */
  refusal(host: string): string | null;
}

type Rule = { scope: Exclude<AddressScope, 'special'> } | { version: 4; net: number; mask: number } | { version: 6; prefix: number[]; bits: number };

const KEYWORDS: Record<string, Exclude<AddressScope, 'special'>> = { private: 'private', loopback: 'loopback' };

const v4Mask = (bits: number): number => (bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0);

/** One MIMIC_ICE_ALLOW entry: `private`, `loopback`, a CIDR (`10.1.0.0/16`, `fd00::/8`) or one address. */
function parseRule(entry: string): Rule {
  const name = `MIMIC_ICE_ALLOW entry "${entry.slice(0, 60)}"`;
  const keyword = KEYWORDS[entry.toLowerCase()];
  if (keyword) return { scope: keyword };
  const [address = '', length, ...rest] = entry.split('/');
  const version = isIP(address);
  // Only the plain spellings: a resolver would read `0177.1` as 127.0.0.1, a reader would not.
  if (version === 0 || address.includes('%') || rest.length > 0 || (length !== undefined && !/^(0|[1-9]\d{0,2})$/.test(length))) {
    throw new ConfigurationError(`${name} is not a CIDR (10.0.0.0/8, fd00::/8), an IP address, "private" or "loopback"`);
  }
  const max = version === 4 ? 32 : 128;
  const bits = length === undefined ? max : Number(length);
  if (bits > max) throw new ConfigurationError(`${name}: an IPv${version} prefix length is at most ${max}`);
  const cls = classOf(address);
  if (cls?.scope === 'special') {
    throw new ConfigurationError(`${name} starts in ${cls.label} space: ICE never contacts link-local (cloud metadata), unspecified, multicast, broadcast or reserved addresses, and MIMIC_ICE_ALLOW cannot allow them`);
  }
  const ip = parseIp(address)!;
  if (ip.version === 4) {
    const mask = v4Mask(bits);
    if (((ip.value & mask) >>> 0) !== ip.value) throw new ConfigurationError(`${name} has bits set past its /${bits} prefix: write its network address`);
    return { version: 4, net: ip.value, mask };
  }
  for (let i = bits; i < 128; i++) {
    if ((ip.bytes[i >> 3]! >> (7 - (i & 7))) & 1) throw new ConfigurationError(`${name} has bits set past its /${bits} prefix: write its network address`);
  }
  return { version: 6, prefix: [...ip.bytes], bits };
}

/** True when `rule` (a CIDR rule) holds the address; IPv4-mapped addresses are judged as the IPv4 address they reach. */
function holds(rule: Extract<Rule, { version: 4 | 6 }>, host: string): boolean {
  const ip = parseIp(host);
  if (!ip) return false;
  const v4 = ip.version === 4 ? ip.value : mappedV4(ip.bytes);
  if (rule.version === 4) return v4 !== null && ((v4 & rule.mask) >>> 0) === rule.net;
  return ip.version === 6 && hasPrefix(ip.bytes, rule.prefix, rule.bits);
}

/**
 * `MIMIC_ICE_ALLOW`: a comma list of `private`, `loopback`, CIDRs and addresses that remote
 * candidates may also have. Empty: public addresses only. Checked at start; a special range
 * (link-local, multicast...) is an error, and stays refused inside a wider CIDR.
 */
export function parseIceAllow(raw: string | undefined): IcePolicy {
  const rules = (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
    .map(parseRule);
  return {
    refusal(host) {
      const name = host.toLowerCase().replace(/\.$/, '');
      if (name.endsWith('.local')) return 'mDNS name';
      // Node would hand anything else to the resolver (and read `2130706433` as 127.0.0.1).
      if (isIP(host) === 0) return 'host name';
      const cls = classOf(host);
      if (!cls) return null;
      if (cls.scope === 'special') return cls.label;
      const allowed = rules.some((r) => ('scope' in r ? r.scope === cls.scope : holds(r, host)));
      return allowed ? null : cls.label;
    },
  };
}
