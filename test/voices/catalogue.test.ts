import { describe, expect, it } from 'vitest';
import { closestVoice, createVoiceCatalogue, describeExternalVoice } from '../../src/voices/catalogue.ts';
import type { ProviderType, Voice, VoiceProvider } from '../../src/voices/interface.ts';

const voice = (provider: ProviderType, id: string, gender: 'male' | 'female', ...locales: string[]): Voice => ({
  id, name: id, gender, provider, access: 'public', styles: [], languages: locales.map((locale) => ({ language: locale, locale })),
});

/** A provider double: lists its voices; never speaks (the catalogue only chooses). */
const provider = (type: ProviderType, voices: Voice[] | Error): VoiceProvider => ({
  type,
  voices: async () => {
    if (voices instanceof Error) throw voices;
    return voices;
  },
  synthesize: async () => {
    throw new Error('not used');
  },
});

const flite = provider('flite', [voice('flite', 'slt', 'female', 'en-US'), voice('flite', 'rms', 'male', 'en-US')]);
const espeak = provider('espeak', [
  voice('espeak', 'en-us-m', 'male', 'en-US'),
  voice('espeak', 'de-f', 'female', 'de-DE'),
  voice('espeak', 'de-m', 'male', 'de-DE'),
  voice('espeak', 'pt-br-f', 'female', 'pt-BR'),
  voice('espeak', 'pt-pt-m', 'male', 'pt-PT'),
]);

describe('what is known of an external voice without its vendor', () => {
  it.each([
    [{ type: 'microsoft', voiceId: 'en-US-JennyNeural' }, 'en-US', 'female'],
    [{ type: 'microsoft', voiceId: 'de-DE-ConradNeural' }, 'de-DE', 'male'],
    [{ type: 'microsoft', voiceId: 'en-US-AndrewMultilingualNeural' }, 'en-US', 'male'],
    [{ type: 'elevenlabs', voiceId: '21m00Tcm4TlvDq8ikWAM' }, 'en', 'female'],
    [{ type: 'elevenlabs', voiceId: 'someClonedVoice', language: 'Portuguese (Brazil)', gender: 'male' as const }, 'pt', 'male'],
    [{ type: 'openai', voiceId: 'onyx' }, 'en', 'male'],
    [{ type: 'elevenlabs', voiceId: 'unknown' }, 'en', undefined],
  ])('%o is %s, %s', (choice, locale, gender) => {
    expect(describeExternalVoice(choice)).toEqual({ locale, gender });
  });
});

describe('the closest embedded voice', () => {
  const all = [voice('flite', 'slt', 'female', 'en-US'), ...[['de-f', 'female', 'de-DE'], ['de-m', 'male', 'de-DE'], ['pt-br-f', 'female', 'pt-BR'], ['pt-pt-m', 'male', 'pt-PT']].map(([id, g, l]) => voice('espeak', id!, g as 'male', l!))];
  it('prefers the same locale, then the same language, then English; and the same gender', () => {
    expect(closestVoice(all, { locale: 'de-DE', gender: 'male' })?.id).toBe('de-m');
    expect(closestVoice(all, { locale: 'de-AT', gender: 'female' })?.id).toBe('de-f');
    expect(closestVoice(all, { locale: 'pt-BR', gender: 'male' })?.id).toBe('pt-br-f');
    expect(closestVoice(all, { locale: 'pt', gender: 'male' })?.id).toBe('pt-pt-m');
    expect(closestVoice(all, { locale: 'ja-JP', gender: 'female' })?.id).toBe('slt');
  });
});

describe('the voice catalogue', () => {
  it('lists every provider, filtered by provider or id, and refuses an unknown provider', async () => {
    const c = createVoiceCatalogue({ providers: [flite, espeak], fallback: 'local' });
    expect((await c.list()).map((v) => v.id)).toEqual(['slt', 'rms', 'en-us-m', 'de-f', 'de-m', 'pt-br-f', 'pt-pt-m']);
    expect((await c.list({ provider: 'flite' })).map((v) => v.id)).toEqual(['slt', 'rms']);
    expect((await c.list({ id: 'de-f' })).map((v) => v.provider)).toEqual(['espeak']);
    expect(await c.list({ provider: 'microsoft' })).toEqual([]);
    await expect(c.list({ provider: 'acme' })).rejects.toMatchObject({ kind: 'ValidationError' });
  });

  it('still lists the others when one vendor cannot be reached, and says which failed', async () => {
    const failed: string[] = [];
    const c = createVoiceCatalogue({ providers: [flite, provider('microsoft', new Error('connect ECONNREFUSED'))], fallback: 'local', onListError: (p) => failed.push(p) });
    expect((await c.list()).map((v) => v.id)).toEqual(['slt', 'rms']);
    expect(failed).toEqual(['microsoft']);
  });

  it('speaks with the named provider when it is configured, and refuses a voice it does not have', async () => {
    const ms = provider('microsoft', [voice('microsoft', 'en-US-JennyNeural', 'female', 'en-US')]);
    const c = createVoiceCatalogue({ providers: [flite, espeak, ms], fallback: 'local' });
    const r = await c.resolve({ type: 'microsoft', voiceId: 'en-US-JennyNeural' });
    expect(r.provider).toBe(ms);
    expect(r.fallback).toBeUndefined();
    await expect(c.resolve({ type: 'microsoft', voiceId: 'en-US-NobodyNeural' })).rejects.toMatchObject({
      kind: 'ValidationError', details: [{ field: 'script.provider.voice_id' }],
    });
    await expect(c.resolve({ type: 'flite', voiceId: 'nope' })).rejects.toMatchObject({ kind: 'ValidationError' });
  });

  it('falls back to the closest embedded voice when the provider is not configured (local), and says so', async () => {
    const c = createVoiceCatalogue({ providers: [flite, espeak], fallback: 'local' });
    const jenny = await c.resolve({ type: 'microsoft', voiceId: 'en-US-JennyNeural' });
    expect([jenny.provider.type, jenny.voiceId]).toEqual(['flite', 'slt']);
    expect(jenny.fallback).toEqual({ requested: { type: 'microsoft', voiceId: 'en-US-JennyNeural' }, reason: expect.stringMatching(/not configured/) });
    const conrad = await c.resolve({ type: 'microsoft', voiceId: 'de-DE-ConradNeural' });
    expect([conrad.provider.type, conrad.voiceId]).toEqual(['espeak', 'de-m']);
    const onyx = await c.resolve({ type: 'openai', voiceId: 'onyx' });
    expect([onyx.provider.type, onyx.voiceId]).toEqual(['flite', 'rms']);
  });

  it('refuses instead when the policy is error, and refuses an unknown provider type either way', async () => {
    const c = createVoiceCatalogue({ providers: [flite, espeak], fallback: 'error' });
    await expect(c.resolve({ type: 'microsoft', voiceId: 'en-US-JennyNeural' })).rejects.toMatchObject({
      kind: 'ValidationError', details: [{ field: 'script.provider.type', message: 'is not configured here' }],
    });
    await expect(c.resolve({ type: 'amazon', voiceId: 'Joanna' })).rejects.toMatchObject({ details: [{ message: 'is not configured here' }] });
    await expect(c.resolve({ type: 'acme', voiceId: 'x' })).rejects.toMatchObject({ kind: 'ValidationError', details: [{ field: 'script.provider.type' }] });
  });

  it("treats the hosted service's providers that mimic has no client for as not configured", async () => {
    const c = createVoiceCatalogue({ providers: [flite, espeak], fallback: 'local' });
    const joanna = await c.resolve({ type: 'amazon', voiceId: 'Joanna', gender: 'female', language: 'German' });
    expect([joanna.provider.type, joanna.voiceId, joanna.fallback?.requested.type]).toEqual(['espeak', 'de-f', 'amazon']);
  });
});
