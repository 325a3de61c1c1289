/** MIMIC_STREAM_PREWARM: the stream renderer is warmed when the server starts (the first stream then opens as fast as the next), unless turned off. */
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { createFakeStreamRenderer } from '../helpers/stream-renderer.ts';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function started(env: Record<string, string>, warm: () => Promise<void>) {
  const renderer = Object.assign(createFakeStreamRenderer(), { warm });
  h = harness(env, { streamRenderer: renderer });
  h.services.startModules();
  return h;
}

describe('warming the stream renderer at start', () => {
  it('warms it once by default, and logs how long it took', async () => {
    let calls = 0;
    const t = started({}, async () => void calls++);
    await expect.poll(() => t.logs.some((l) => l.includes('"stream renderer warmed"'))).toBe(true);
    expect(calls).toBe(1);
  });

  it('does not with MIMIC_STREAM_PREWARM=false, and a failed warm-up is a warning, not a failed start', async () => {
    let calls = 0;
    started({ MIMIC_STREAM_PREWARM: 'false' }, async () => void calls++);
    expect(calls).toBe(0);
    await h!.close();
    const t = started({}, async () => { throw new Error('no models here'); });
    await expect.poll(() => t.logs.find((l) => l.includes('stream renderer warm-up failed'))).toContain('no models here');
  });
});
