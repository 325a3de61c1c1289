import { afterAll, describe, expect, it } from 'vitest';
import { harness } from '../helpers/harness.ts';

const h = harness();
afterAll(() => h.services.close());

describe('the request log on the real app', () => {
  it('writes one line for every answer, unknown paths with and without a key included', async () => {
    const { key } = h.user();
    for (const [path, withKey, status] of [
      ['/nowhere', false, 401],
      ['/nowhere', true, 404],
      ['/animations', false, 401],
      ['/animations/anm_missing', true, 404],
      ['/health', false, 200],
    ] as const) {
      const before = h.logs.length;
      const res = await h.call('GET', path, withKey ? { key } : {});
      expect(res.status, path).toBe(status);
      const lines = h.logs.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
      expect(lines, `${path} ${withKey ? 'with' : 'without'} a key`).toEqual([expect.objectContaining({ method: 'GET', path, status })]);
    }
  });
});
