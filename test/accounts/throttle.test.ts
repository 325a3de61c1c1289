import { describe, expect, it } from 'vitest';
import { accountBucket, addressBucket } from '../../src/accounts/throttle.ts';
import { insecurePublicUrl } from '../../src/server.ts';

describe('sign-in throttle buckets', () => {
  it('counts IPv6 by its /64 whatever the spelling, IPv4-mapped addresses as IPv4', () => {
    expect(addressBucket('2001:db8:1:2::5')).toBe('addr:2001:db8:1:2::/64');
    expect(addressBucket('2001:0db8:0001:0002:ffff:0:0:9')).toBe('addr:2001:db8:1:2::/64');
    expect(addressBucket('2001:db8::1')).toBe('addr:2001:db8:0:0::/64');
    expect(addressBucket('::1')).toBe('addr:0:0:0:0::/64');
    expect(addressBucket('fe80::1%eth0')).toBe('addr:fe80:0:0:0::/64');
    expect(addressBucket('::ffff:192.0.2.7')).toBe('addr:192.0.2.7');
    expect(addressBucket('192.0.2.7')).toBe('addr:192.0.2.7');
    expect(addressBucket('unknown')).toBe('addr:unknown');
  });

  it('keys an account by a hash of its normalised email, never the email itself', () => {
    expect(accountBucket('ann@example.org')).toMatch(/^acct:[A-Za-z0-9_-]{43}$/);
    expect(accountBucket('ann@example.org')).not.toContain('ann');
    expect(accountBucket('ann@example.org')).not.toBe(accountBucket('bob@example.org'));
  });
});

describe('the start-up warning about cookies', () => {
  it('is given for an http public URL on a host other than loopback', () => {
    expect(insecurePublicUrl('http://studio.example')).toBe(true);
    expect(insecurePublicUrl('http://10.0.0.5:8080')).toBe(true);
    expect(insecurePublicUrl('https://studio.example')).toBe(false);
    expect(insecurePublicUrl('http://localhost:8080')).toBe(false);
    expect(insecurePublicUrl('http://127.0.0.1:8080')).toBe(false);
    expect(insecurePublicUrl('http://[::1]:8080')).toBe(false);
  });
});
