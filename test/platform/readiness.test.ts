import { describe, expect, it } from 'vitest';
import { createReadiness } from '../../src/platform/readiness.ts';
import { createLogger } from '../../src/log.ts';

const quiet = () => {
  const lines: string[] = [];
  return { log: createLogger((l) => lines.push(l)), lines };
};

describe('readiness checks', () => {
  it('passes when every check resolves; a throw is failed, no answer within the timeout is timed out', async () => {
    const { log } = quiet();
    const r = createReadiness({ log, timeoutMs: 50 });
    r.add('database', async () => {});
    expect(await r.run()).toEqual({ ready: true, checks: { database: 'ok' } });
    r.add('bucket', async () => {
      throw new Error('no bucket');
    });
    r.add('slow', () => new Promise(() => {}));
    r.add('sync', () => {
      throw new Error('thrown before any promise');
    });
    expect(await r.run()).toEqual({ ready: false, checks: { database: 'ok', bucket: 'failed', slow: 'timed out', sync: 'failed' } });
  });

  it('shares one run between concurrent callers, and refuses a name added twice', async () => {
    const { log } = quiet();
    const r = createReadiness({ log });
    let runs = 0;
    let release!: () => void;
    r.add('database', () => {
      runs++;
      return new Promise<void>((res) => (release = res));
    });
    const both = Promise.all([r.run(), r.run()]);
    await new Promise((res) => setImmediate(res));
    release();
    expect((await both).map((x) => x.ready)).toEqual([true, true]);
    expect(runs).toBe(1);
    expect(() => r.add('database', async () => {})).toThrow(/added twice/);
  });
});
