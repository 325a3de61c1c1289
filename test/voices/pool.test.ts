import { afterEach, describe, expect, it } from 'vitest';
import { VoicePool, VoicePoolFull, type SynthesisJob } from '../../src/voices/pool.ts';
import { expectSpeechError } from './embedded-checks.ts';

/** About 6,000 characters: several seconds of work for espeak on a loaded machine, minutes of speech. */
const LONG: SynthesisJob = {
  engine: 'espeak',
  voice: 'en-us+m3',
  text: 'The quick brown fox jumps over the lazy dog, and then it runs far away into the forest. '.repeat(70),
};
const SHORT: SynthesisJob = { engine: 'espeak', voice: 'en-us+f3', text: 'Hello there.' };

const pools: VoicePool[] = [];
function pool(options: ConstructorParameters<typeof VoicePool>[0] = {}): VoicePool {
  const p = new VoicePool(options);
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('voice pool', () => {
  it('keeps the main event loop responsive while a long text is synthesized', async () => {
    const voices = pool();
    await voices.run(SHORT); // start and warm the worker first: the measure is about synthesis, not start-up
    let ticks = 0;
    let longestGap = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - last);
      last = now;
      ticks++;
    }, 5);
    const started = performance.now();
    const speech = await voices.run(LONG);
    const elapsed = performance.now() - started;
    clearInterval(timer);
    expect(speech.durationMs).toBeGreaterThan(60_000);
    // Were synthesis on this thread, the timer could not fire at all until it ended.
    expect(ticks).toBeGreaterThan(5);
    expect(longestGap).toBeLessThan(elapsed);
  });

  it('a queued job that is aborted never runs, and the queue goes on', async () => {
    const voices = pool({ size: 1 });
    const first = voices.run(LONG);
    const controller = new AbortController();
    const second = voices.run(SHORT, controller.signal);
    const third = voices.run(SHORT);
    expect(voices.stats()).toMatchObject({ queued: 2, running: 1 });
    controller.abort();
    await expectSpeechError(second, 'aborted');
    expect(voices.stats().queued).toBe(1);
    await first;
    expect((await third).durationMs).toBeGreaterThan(300);
    expect(voices.stats().started).toBe(2); // the first and the third: the aborted one never reached a worker
  });

  it('an aborted running job is dropped at once, and the worker takes the next job', async () => {
    const voices = pool({ size: 1 });
    await voices.run(SHORT);
    const controller = new AbortController();
    const running = voices.run({ ...LONG, text: LONG.text.repeat(4) }, controller.signal);
    const next = voices.run(SHORT);
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await expectSpeechError(running, 'aborted');
    expect((await next).durationMs).toBeGreaterThan(300);
  });

  it('refuses an already aborted signal without queueing', async () => {
    const voices = pool();
    await expectSpeechError(voices.run(SHORT, AbortSignal.abort()), 'aborted');
    expect(voices.stats()).toEqual({ queued: 0, running: 0, started: 0 });
  });

  it('bounds the queue', async () => {
    const voices = pool({ size: 1, maxQueue: 1 });
    const running = voices.run(LONG);
    const queued = voices.run(SHORT);
    await expect(voices.run(SHORT)).rejects.toBeInstanceOf(VoicePoolFull);
    expect(voices.stats()).toMatchObject({ queued: 1, running: 1 });
    // afterEach closes the pool: these two end as aborted.
    await Promise.all([expectSpeechError(running, 'aborted'), expectSpeechError(queued, 'aborted'), voices.close()]);
  });

  it('runs jobs on several workers at once', async () => {
    const voices = pool({ size: 2, warm: false });
    const both = [voices.run(SHORT), voices.run({ engine: 'flite', voice: 'slt', text: 'Hello there.' })];
    expect(voices.stats()).toMatchObject({ running: 2, queued: 0 });
    const [espeak, flite] = await Promise.all(both);
    expect(espeak!.sampleRate).toBe(22_050);
    expect(flite!.sampleRate).toBe(16_000);
  });

  it('close() rejects what is running and queued, ends the threads, and refuses new work', async () => {
    const voices = pool({ size: 1 });
    const running = expectSpeechError(voices.run(LONG), 'aborted');
    const queued = expectSpeechError(voices.run(SHORT), 'aborted');
    await voices.close();
    await Promise.all([running, queued]);
    await expectSpeechError(voices.run(SHORT), 'aborted');
    expect(voices.stats()).toMatchObject({ queued: 0, running: 0 });
    await voices.close(); // twice is fine
  });
});
