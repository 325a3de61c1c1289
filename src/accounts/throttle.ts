import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import type { AccountStore } from './store.ts';

/**
 * Failed sign-ins counted per account and per client address in fixed windows. The account's
 * bucket is keyed by the email's hash whether or not an account has that email, so a throttled
 * answer says nothing about which emails exist. Only failures count; a success clears the
 * account's bucket (not the address's: one address trying many accounts stays limited).
 */
export interface Throttle {
  /** Seconds until the caller may try again when either bucket is full, else 0. */
  wait(email: string, address: string, now: number): Promise<number>;
  fail(email: string, address: string, now: number): Promise<void>;
  succeed(email: string): Promise<void>;
}

export const accountBucket = (email: string): string => `acct:${createHash('sha256').update(email).digest('base64url')}`;

/** An IPv6 address counts by its /64 (one host usually holds a whole /64); IPv4-mapped addresses count as IPv4. */
export function addressBucket(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return `addr:${mapped[1]}`;
  if (!isIPv6(address)) return `addr:${address}`;
  const [head = '', tail = ''] = address.toLowerCase().split('%')[0]!.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : [];
  const groups = address.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `addr:${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export function createThrottle(store: AccountStore, limits: { perAccount: number; perAddress: number; windowMs: number }): Throttle {
  const { windowMs } = limits;
  const left = (started: number, now: number) => Math.max(1, Math.ceil((started + windowMs - now) / 1000));
  return {
    async wait(email, address, now) {
      const account = await store.failures(accountBucket(email), now, windowMs);
      const addr = await store.failures(addressBucket(address), now, windowMs);
      let wait = 0;
      if (account.failures >= limits.perAccount) wait = left(account.windowStartedAt, now);
      if (addr.failures >= limits.perAddress) wait = Math.max(wait, left(addr.windowStartedAt, now));
      return wait;
    },
    async fail(email, address, now) {
      await store.addFailure(accountBucket(email), now, windowMs);
      await store.addFailure(addressBucket(address), now, windowMs);
    },
    async succeed(email) {
      await store.clearFailures(accountBucket(email));
    },
  };
}
