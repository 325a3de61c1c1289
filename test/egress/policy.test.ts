import { describe, expect, it } from 'vitest';
import { EgressError } from '../../src/egress/errors.ts';
import { canonicalIp, createEgressPolicy, parseEgressUrl, parseIPv4, refusalOf } from '../../src/egress/policy.ts';
import { thrownBy } from '../helpers/rejection.ts';

/** Address vectors that must be refused by default. */
const REFUSED: [address: string, why: RegExp][] = [
  ['127.0.0.1', /loopback/],
  ['127.255.255.254', /loopback/],
  ['0.0.0.0', /this-network/],
  ['0.1.2.3', /this-network/],
  ['10.0.0.1', /private/],
  ['10.255.255.255', /private/],
  ['172.16.0.1', /private/],
  ['172.31.255.255', /private/],
  ['192.168.1.1', /private/],
  ['100.64.0.1', /CGNAT/],
  ['100.127.255.255', /CGNAT/],
  ['169.254.169.254', /link-local/],
  ['192.0.0.8', /IETF/],
  ['192.0.2.10', /documentation/],
  ['198.51.100.7', /documentation/],
  ['203.0.113.9', /documentation/],
  ['198.18.0.1', /benchmark/],
  ['198.19.255.255', /benchmark/],
  ['224.0.0.1', /multicast/],
  ['239.255.255.250', /multicast/],
  ['240.0.0.1', /reserved/],
  ['255.255.255.255', /reserved/],
  // Numeric forms of 127.0.0.1 (inet_aton): decimal, octal, hex, short.
  ['2130706433', /loopback/],
  ['0177.0.0.1', /loopback/],
  ['0x7f.1', /loopback/],
  ['127.1', /loopback/],
  ['0x7f000001', /loopback/],
  ['012.0.0.1', /private/],
  // IPv6
  ['::', /unspecified/],
  ['::1', /loopback/],
  ['0:0:0:0:0:0:0:1', /loopback/],
  ['[::1]', /loopback/],
  ['::ffff:127.0.0.1', /IPv4-mapped loopback/],
  ['::ffff:7f00:1', /IPv4-mapped loopback/],
  ['::ffff:a9fe:a9fe', /IPv4-mapped link-local/],
  ['::ffff:10.1.2.3', /IPv4-mapped private/],
  ['::7f00:1', /IPv4-compatible/],
  ['::127.0.0.1', /IPv4-compatible/],
  ['::8.8.8.8', /IPv4-compatible/],
  ['::ffff:0:7f00:1', /IPv4-translated/],
  ['64:ff9b::7f00:1', /NAT64 loopback/],
  ['64:ff9b::10.0.0.1', /NAT64 private/],
  ['64:ff9b:1::1', /local-use NAT64/],
  ['2002:7f00:1::', /6to4 loopback/],
  ['2002:a9fe:a9fe::1', /6to4 link-local/],
  ['2002:c0a8:0101::', /6to4 private/],
  ['2001::1', /Teredo/],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
  ['2001:db8::1', /documentation/],
  ['3fff::1', /documentation/],
  ['fc00::1', /unique local/],
  ['fd12:3456::1', /unique local/],
  ['fe80::1', /link-local/],
  ['fe80::1%eth0', /link-local/],
  ['febf::1', /link-local/],
  ['fec0::1', /site-local/],
  ['ff02::1', /multicast/],
  ['100::1', /discard/],
  ['4000::1', /reserved/],
  ['not-an-ip', /not an address/],
];

const PUBLIC = ['8.8.8.8', '1.1.1.1', '93.184.216.34', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1', '2a00:1450:4001::1'];

describe('refusalOf', () => {
  it.each(REFUSED)('refuses %s', (address, why) => {
    expect(refusalOf(address)).toMatch(why);
  });

  it.each(PUBLIC)('allows public %s', (address) => {
    expect(refusalOf(address)).toBeNull();
  });
});

describe('allow list', () => {
  it.each(REFUSED.filter(([a]) => a !== 'not-an-ip'))('an allow entry of %s permits exactly that address', (address) => {
    const policy = createEgressPolicy([address]);
    expect(policy.refusal('some.host', address)).toBeNull();
    // Other refused addresses stay refused.
    const other = canonicalIp(address) === '10.0.0.1' ? '127.0.0.1' : '10.0.0.1';
    expect(policy.refusal('some.host', other)).not.toBeNull();
  });

  it('an allowed address matches other spellings of the same address', () => {
    const policy = createEgressPolicy(['::1', '127.0.0.1']);
    expect(policy.refusal('x', '0:0:0:0:0:0:0:1')).toBeNull();
    expect(policy.refusal('x', '2130706433')).toBeNull();
    expect(policy.refusal('x', '127.0.0.2')).toMatch(/loopback/);
  });

  it('an allowed name may resolve anywhere; other names may not', () => {
    const policy = createEgressPolicy(['Internal.Example.', ' localhost ']);
    expect(policy.isHostAllowed('internal.example')).toBe(true);
    expect(policy.isHostAllowed('internal.example.')).toBe(true);
    expect(policy.refusal('internal.example', '10.0.0.5')).toBeNull();
    expect(policy.refusal('localhost', '127.0.0.1')).toBeNull();
    expect(policy.refusal('other.example', '10.0.0.5')).toMatch(/private/);
    expect(policy.refusal('sub.internal.example', '10.0.0.5')).toMatch(/private/);
  });

  it('an empty allow list refuses everything non-public', () => {
    const policy = createEgressPolicy([]);
    expect(policy.refusal('localhost', '127.0.0.1')).toMatch(/loopback/);
    expect(policy.refusal('example.com', '93.184.216.34')).toBeNull();
  });
});

describe('parseIPv4', () => {
  it.each([
    ['1.2.3.4', '1.2.3.4'],
    ['0x01020304', '1.2.3.4'],
    ['1.0x2.03.4', '1.2.3.4'],
    ['16909060', '1.2.3.4'],
    ['1.2.772', '1.2.3.4'],
  ])('%s is %s', (text, expected) => {
    expect(canonicalIp(text)).toBe(expected);
  });

  it.each(['1.2.3.4.5', '256.1.1.1', '1.2.3.256', '4294967296', '08.1.1.1', '1..2.3', 'abc'])('rejects %s', (text) => {
    expect(parseIPv4(text)).toBeNull();
  });
});

describe('parseEgressUrl', () => {
  const reason = (url: string): string => thrownBy(() => parseEgressUrl(url), EgressError).reason;

  it('refuses other schemes, user info and garbage', () => {
    expect(reason('ftp://example.com/x')).toBe('scheme');
    expect(reason('file:///etc/passwd')).toBe('scheme');
    expect(reason('gopher://example.com')).toBe('scheme');
    expect(reason('http://user:pass@example.com/')).toBe('credentials_in_url');
    expect(reason('https://user@example.com/')).toBe('credentials_in_url');
    expect(reason('not a url')).toBe('bad_url');
    expect(reason('/relative')).toBe('bad_url');
  });

  it('never echoes the URL (query strings carry signatures) in messages', () => {
    for (const url of ['ftp://example.com/x?sig=SECRET', 'http://u:SECRET@example.com/?sig=SECRET', 'not a url?sig=SECRET']) {
      const err = thrownBy(() => parseEgressUrl(url), EgressError);
      expect(err.message, url).not.toContain('SECRET');
      expect(JSON.stringify(err), url).not.toContain('SECRET');
    }
  });

  it('WHATWG parsing turns numeric hosts into dotted quads that are then checked', () => {
    for (const url of ['http://2130706433/', 'http://0177.0.0.1/', 'http://0x7f.1/', 'http://127.1/', 'http://127.0.0.1./', 'http://[::ffff:127.0.0.1]/']) {
      const target = parseEgressUrl(url);
      expect(target.literal, url).not.toBeNull();
      expect(refusalOf(target.literal!), url).toMatch(/loopback/);
    }
  });

  it('normalizes host names: lowercase, no trailing dot, default ports', () => {
    expect(parseEgressUrl('https://Example.COM./a?b=c')).toMatchObject({ host: 'example.com', port: 443, literal: null });
    expect(parseEgressUrl('http://example.com:8080')).toMatchObject({ port: 8080 });
    expect(parseEgressUrl('http://[::1]:81/')).toMatchObject({ host: '::1', literal: '0000:0000:0000:0000:0000:0000:0000:0001' });
  });
});
