/**
 * Signed media URLs are remembered within their expiry second (a polled record signs the same
 * URLs again): each URL must be exactly what signing it afresh gives, for every key, public
 * URL, owner, object key and second.
 */
import { describe, expect, it } from 'vitest';
import { createHmac, randomBytes } from 'node:crypto';
import { encodeMediaPath, signMediaUrl, verifyMediaSignature } from '../../src/media/signing.ts';

/** The URL as the scheme defines it, computed here without the service's code. */
function fresh(publicUrl: string, key: Buffer, owner: string, objectKey: string, ttlSeconds: number, now: number): string {
  const expires = Math.floor(now / 1000) + ttlSeconds;
  const signature = createHmac('sha256', key).update(`${owner}/${objectKey}\n${expires}`).digest('base64url');
  return `${publicUrl.replace(/\/+$/, '')}/media/${encodeMediaPath(owner, objectKey)}?expires=${expires}&signature=${signature}`;
}

describe('signMediaUrl', () => {
  const key = randomBytes(32);
  const otherKey = randomBytes(32);
  const now = 1_800_000_000_000;

  it('gives, again and again, the URL that signing afresh gives, and it verifies', () => {
    const cases: [string, Buffer, string, string, number, number][] = [
      ['http://localhost:8080', key, 'usr_a', 'results/clip.mp4', 3600, now],
      ['http://localhost:8080', key, 'usr_a', 'results/clip.mp4', 3600, now + 999],
      ['http://localhost:8080', key, 'usr_a', 'results/clip.mp4', 3600, now + 1000],
      ['http://localhost:8080', key, 'usr_a', 'results/clip.mp4', 3600, now],
      ['http://localhost:8080', key, 'usr_a', 'results/clip.mp4', 60, now],
      ['http://localhost:8080', otherKey, 'usr_a', 'results/clip.mp4', 3600, now],
      ['https://media.example.com/', key, 'usr_a', 'results/clip.mp4', 3600, now],
      ['http://localhost:8080', key, 'usr_b', 'results/clip.mp4', 3600, now],
      // One canonical text, two owner/key splits: two paths, one signature.
      ['http://localhost:8080', key, 'a/b', 'c', 3600, now],
      ['http://localhost:8080', key, 'a', 'b/c', 3600, now],
      ['http://localhost:8080', key, 'usr_a', 'a file #1?.png', 3600, now],
    ];
    for (let round = 0; round < 3; round++) {
      for (const [publicUrl, k, owner, objectKey, ttlSeconds, t] of cases) {
        const url = signMediaUrl({ publicUrl, key: k, owner, objectKey, ttlSeconds, now: t });
        expect(url).toBe(fresh(publicUrl, k, owner, objectKey, ttlSeconds, t));
        const q = new URL(url).searchParams;
        const check = { key: k, owner, objectKey, expires: q.get('expires') ?? undefined, signature: q.get('signature') ?? undefined, now: t };
        expect(verifyMediaSignature(check)).toBe('ok');
        expect(verifyMediaSignature({ ...check, key: k === key ? otherKey : key })).toBe('invalid');
      }
    }
    expect(signMediaUrl({ publicUrl: 'http://localhost:8080', key, owner: 'a/b', objectKey: 'c', ttlSeconds: 3600, now })).not.toBe(
      signMediaUrl({ publicUrl: 'http://localhost:8080', key, owner: 'a', objectKey: 'b/c', ttlSeconds: 3600, now }),
    );
  });

  it('stays exact past the number of URLs it remembers in one second', () => {
    for (let i = 0; i < 2500; i++) {
      const objectKey = `objects/${i % 1700}.png`;
      expect(signMediaUrl({ publicUrl: 'http://localhost:8080', key, owner: 'usr_many', objectKey, ttlSeconds: 3600, now })).toBe(
        fresh('http://localhost:8080', key, 'usr_many', objectKey, 3600, now),
      );
    }
  });
});
