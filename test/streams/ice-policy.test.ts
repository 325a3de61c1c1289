/** The ICE policy over the address table (the egress classifier's), MIMIC_ICE_ALLOW parsing, and how candidates are read out of an answer and a trickle. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/config.ts';
import { parseIceAllow } from '../../src/streams/ice-policy.ts';
import { candidateAddress, screenCandidates } from '../../src/streams/peer.ts';
import { streamSettings } from '../../src/streams/settings.ts';

const byDefault = parseIceAllow(undefined);

describe('the default ICE policy', () => {
  it.each([
    // The outside probe's five addresses.
    ['169.254.169.254', 'link-local'],
    ['10.0.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['172.16.0.1', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['127.0.0.1', 'loopback'],
    ['0.0.0.0', 'this-network'],
    ['255.255.255.255', 'reserved'],
    ['224.0.0.251', 'multicast'],
    ['192.0.2.1', 'documentation'],
    ['::1', 'loopback'],
    ['::', 'unspecified'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['fd00:ec2::254', 'unique local'],
    ['ff02::fb', 'multicast'],
    ['::ffff:169.254.169.254', 'IPv4-mapped link-local'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped link-local'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 link-local'],
    ['2002:a9fe:a9fe::1', '6to4 link-local'],
    ['::169.254.169.254', 'IPv4-compatible'],
    ['5f0d2a1c-3b4e-4c6d-8e9f-0a1b2c3d4e5f.local', 'mDNS name'],
    ['HOST.LOCAL.', 'mDNS name'],
    ['metadata.google.internal', 'host name'],
    ['localhost', 'host name'],
    ['2130706433', 'host name'],
    ['0177.0.0.1', 'host name'],
    ['0xa9.254.169.254', 'host name'],
    ['', 'host name'],
  ])('refuses %s (%s)', (address, reason) => {
    expect(byDefault.refusal(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '203.0.114.7', '2001:4860:4860::8888', '::ffff:8.8.8.8'])('allows the public address %s', (address) => {
    expect(byDefault.refusal(address)).toBeNull();
  });
});

describe('MIMIC_ICE_ALLOW', () => {
  it('private: RFC 1918, CGNAT and unique local addresses, in every spelling the OS sends to directly', () => {
    const p = parseIceAllow('private');
    for (const a of ['10.0.0.1', '192.168.1.1', '172.16.0.1', '100.64.0.1', 'fd00::1', '::ffff:10.0.0.1']) expect(p.refusal(a), a).toBeNull();
    expect(p.refusal('127.0.0.1')).toBe('loopback');
    expect(p.refusal('169.254.169.254')).toBe('link-local');
    // A gateway or relay forwards these: never a client's own address.
    expect(p.refusal('64:ff9b::a00:1')).toBe('NAT64 private');
    expect(p.refusal('2002:a00:1::')).toBe('6to4 private');
  });

  it('loopback: 127/8 and ::1', () => {
    const p = parseIceAllow('loopback');
    for (const a of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1']) expect(p.refusal(a), a).toBeNull();
    expect(p.refusal('10.0.0.1')).toBe('private');
  });

  it('CIDRs and single addresses allow exactly what they cover', () => {
    const p = parseIceAllow(' 127.0.0.1/32 , 10.1.0.0/16,,fd12:3456::/32, 192.168.7.7 ');
    expect(p.refusal('127.0.0.1')).toBeNull();
    expect(p.refusal('::ffff:127.0.0.1')).toBeNull();
    expect(p.refusal('127.0.0.2')).toBe('loopback');
    expect(p.refusal('::ffff:127.0.0.2')).toBe('IPv4-mapped loopback');
    expect(p.refusal('::1')).toBe('loopback');
    expect(p.refusal('10.1.200.3')).toBeNull();
    expect(p.refusal('10.2.0.1')).toBe('private');
    expect(p.refusal('fd12:3456:9::1')).toBeNull();
    expect(p.refusal('fd00::1')).toBe('unique local');
    expect(p.refusal('192.168.7.7')).toBeNull();
    expect(p.refusal('192.168.7.8')).toBe('private');
  });

  it('never allows link-local (metadata) or another special range, even inside a wider CIDR', () => {
    const wide = parseIceAllow('128.0.0.0/1, 2000::/3, private, loopback');
    for (const a of ['169.254.169.254', '224.0.0.251', '255.255.255.255', '192.0.2.1', '::ffff:169.254.169.254']) expect(wide.refusal(a), a).not.toBeNull();
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff }), (low) => {
        const address = `169.254.${low >> 8}.${low & 0xff}`;
        return wide.refusal(address) === 'link-local' && wide.refusal(`::ffff:${address}`) === 'IPv4-mapped link-local';
      }),
    );
  });

  it.each([
    ['an unknown word', 'lan'],
    ['a wildcard', '*'],
    ['a prefix too long', '10.0.0.0/33'],
    ['an IPv6 prefix too long', 'fd00::/129'],
    ['a prefix with a leading zero', '10.0.0.0/08'],
    ['an empty prefix', '10.0.0.0/'],
    ['two prefixes', '10.0.0.0/8/8'],
    ['host bits past the prefix', '10.0.0.1/8'],
    ['IPv6 host bits past the prefix', 'fd00::1/64'],
    ['an octal spelling', '0177.0.0.1'],
    ['a zone', 'fe80::1%eth0'],
    ['a host name', 'lan.example.org'],
    ['link-local', '169.254.0.0/16'],
    ['the metadata address', '169.254.169.254'],
    ['IPv6 link-local', 'fe80::/10'],
    ['everything', '0.0.0.0/0'],
    ['all of IPv6', '::/0'],
    ['multicast', '224.0.0.0/4'],
    ['the mapped metadata address', '::ffff:169.254.169.254'],
  ])('refuses %s at start with a clear error', (_, entry) => {
    let error: unknown;
    try {
      parseIceAllow(`private, ${entry}`);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String(error)).toContain('MIMIC_ICE_ALLOW');
  });

  it('is read with the stream settings, and a bad value stops the start', () => {
    expect(() => streamSettings.load({ MIMIC_ICE_ALLOW: '169.254.169.254/32' })).toThrow(/link-local.*cannot allow/);
    expect(streamSettings.load({}).icePolicy.refusal('127.0.0.1')).toBe('loopback');
    expect(streamSettings.load({ MIMIC_ICE_ALLOW: 'loopback' }).icePolicy.refusal('127.0.0.1')).toBeNull();
  });
});

describe('reading candidates as werift reads them', () => {
  it('finds the address in a trickled candidate, with or without its prefix', () => {
    expect(candidateAddress('candidate:1 1 udp 2122260223 10.0.0.1 9 typ host generation 0')).toBe('10.0.0.1');
    expect(candidateAddress('1 1 udp 2122260223 10.0.0.1 9 typ host')).toBe('10.0.0.1');
    // werift strips only `candidate:`, and still reads the fifth field as the address.
    expect(candidateAddress('a=candidate:1 1 udp 2122260223 10.0.0.1 9 typ host')).toBe('10.0.0.1');
    expect(candidateAddress('candidate:1 1 udp 2122260223 10.0.0.1 9')).toBeNull();
  });

  it('screens every candidate line of an answer, CRLF or LF', () => {
    const lines = ['v=0', 'm=video 9 UDP/TLS/RTP/SAVPF 96', 'a=candidate:1 1 udp 1 10.0.0.1 9 typ host', 'a=candidate:2 1 udp 1 127.0.0.1 9 typ host', 'a=end-of-candidates', ''];
    const keepLoopback = (candidates: string[]) => candidates.map((c) => candidateAddress(c) === '127.0.0.1');
    for (const eol of ['\r\n', '\n']) {
      const out = screenCandidates(lines.join(eol), keepLoopback);
      expect(out).toBe(lines.filter((l) => !l.includes('10.0.0.1')).join(eol));
    }
  });
});
