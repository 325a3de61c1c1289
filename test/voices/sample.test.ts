import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';
import { createVoiceSampler, SAMPLE_LIMITS } from '../../src/voices/sample.ts';
import { createVoiceCatalogue } from '../../src/voices/catalogue.ts';
import { SpeechError, type SpeechRequest, type VoiceProvider } from '../../src/voices/interface.ts';
import { createToneVoice } from '../helpers/tone-voice.ts';

let h: Harness;
beforeAll(() => {
  h = harness();
});
afterAll(() => h.close());

/** A WAV's sample rate and seconds of 16-bit mono sound, read from its header. */
function wavInfo(bytes: Buffer): { rate: number; seconds: number } {
  expect(bytes.toString('latin1', 0, 4)).toBe('RIFF');
  expect(bytes.toString('latin1', 8, 12)).toBe('WAVE');
  const rate = bytes.readUInt32LE(24);
  return { rate, seconds: bytes.readUInt32LE(40) / 2 / rate };
}

const sample = async (path: string, key?: string) => {
  await h.call('GET', '/health');
  const res = await h.app.request(path, { headers: key ? { authorization: `Basic ${key}` } : {} });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
};

describe('GET /tts/voices/{id}/sample', () => {
  it('speaks the voice introducing itself, or the given text, as a WAV with an embedded voice', async () => {
    const u = h.user();
    const intro = await sample('/tts/voices/en-US-flite-slt/sample?provider=flite', u.key);
    expect(intro.status).toBe(200);
    expect(intro.type).toBe('audio/wav');
    expect(wavInfo(intro.bytes).seconds).toBeGreaterThan(1);
    const short = await sample(`/tts/voices/en-US-flite-slt/sample?text=${encodeURIComponent('Hi.')}`, u.key);
    expect(short.status).toBe(200);
    const info = wavInfo(short.bytes);
    expect(info.seconds).toBeGreaterThan(0);
    expect(info.seconds).toBeLessThan(wavInfo(intro.bytes).seconds);
  });

  it('refuses a text too long, an empty one, an unknown voice and a caller without a key', async () => {
    const u = h.user();
    const long = await h.call('GET', `/tts/voices/en-US-flite-slt/sample?text=${'a'.repeat(SAMPLE_LIMITS.maxChars + 1)}`, { key: u.key });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ kind: 'ValidationError', details: [{ field: 'text' }] });
    expect((await h.call('GET', '/tts/voices/en-US-flite-slt/sample?text=%20%20', { key: u.key })).body).toMatchObject({ kind: 'ValidationError' });
    const unknown = await h.call('GET', '/tts/voices/no-such-voice/sample', { key: u.key });
    expect(unknown.status).toBe(404);
    expect(unknown.body.description).toContain('GET /tts/voices');
    expect((await h.call('GET', '/tts/voices/en-US-flite-slt/sample?provider=acme', { key: u.key })).status).toBe(400);
    expect((await h.call('GET', '/tts/voices/en-US-flite-slt/sample')).status).toBe(401);
  });
});

/** A tone voice whose syntheses wait until released: to hold samples in flight. */
function heldVoice() {
  const tone = createToneVoice('flite');
  const waiting: (() => void)[] = [];
  const provider: VoiceProvider & { calls: SpeechRequest[] } = {
    ...tone,
    async synthesize(req) {
      tone.calls.push(req);
      await new Promise<void>((resolve) => waiting.push(resolve));
      if (req.text.includes('refuse')) throw new SpeechError('vendor', 'secret vendor detail');
      return tone.synthesize(req).finally(() => tone.calls.pop());
    },
  };
  return { provider, calls: tone.calls, release: () => waiting.splice(0).forEach((r) => r()), waiting };
}

describe('the voice sampler', () => {
  it('speaks at most `concurrent` samples at once and refuses more at once with a 503', async () => {
    const voice = heldVoice();
    const sampler = createVoiceSampler(createVoiceCatalogue({ providers: [voice.provider], fallback: 'local' }), { ...SAMPLE_LIMITS, concurrent: 2 });
    const a = sampler.speak({ voiceId: 'en-US-flite-slt', text: 'one' });
    const b = sampler.speak({ voiceId: 'en-US-flite-slt', text: 'two' });
    await expect.poll(() => voice.waiting.length).toBe(2);
    await expect(sampler.speak({ voiceId: 'en-US-flite-slt', text: 'three' })).rejects.toMatchObject({ kind: 'ServiceUnavailableError' });
    voice.release();
    await Promise.all([a, b]);
    // Room again once they are done.
    const c = sampler.speak({ voiceId: 'en-US-flite-slt', text: 'three' });
    await expect.poll(() => voice.waiting.length).toBe(1);
    voice.release();
    expect(wavInfo(await c).seconds).toBeGreaterThan(0);
  });

  it('remembers recent samples: the same voice and text is spoken once', async () => {
    const tone = createToneVoice('flite');
    const sampler = createVoiceSampler(createVoiceCatalogue({ providers: [tone], fallback: 'local' }), { ...SAMPLE_LIMITS, remembered: 2 });
    const first = await sampler.speak({ voiceId: 'en-US-flite-slt' });
    expect(await sampler.speak({ voiceId: 'en-US-flite-slt' })).toBe(first);
    expect(tone.calls).toHaveLength(1);
    expect(tone.calls[0]!.text).toContain('This is how I will read your script');
    await sampler.speak({ voiceId: 'en-US-flite-slt', text: 'b' });
    await sampler.speak({ voiceId: 'en-US-flite-slt', text: 'c' });
    // Past its size the oldest is forgotten, and spoken again when asked for.
    await sampler.speak({ voiceId: 'en-US-flite-slt' });
    expect(tone.calls).toHaveLength(4);
  });

  it('answers a voice that fails with a 503 that names the voice, not the vendor\'s words, and gives its place back', async () => {
    const voice = heldVoice();
    const sampler = createVoiceSampler(createVoiceCatalogue({ providers: [voice.provider], fallback: 'local' }), { ...SAMPLE_LIMITS, concurrent: 1 });
    const refused = sampler.speak({ voiceId: 'en-US-flite-slt', text: 'refuse this' });
    await expect.poll(() => voice.waiting.length).toBe(1);
    voice.release();
    const err = await refused.catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'ServiceUnavailableError' });
    expect((err as Error).message).not.toContain('secret vendor detail');
    const next = sampler.speak({ voiceId: 'en-US-flite-slt', text: 'fine' });
    await expect.poll(() => voice.waiting.length).toBe(1);
    voice.release();
    await expect(next).resolves.toBeInstanceOf(Buffer);
  });
});
