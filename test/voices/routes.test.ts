import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../helpers/harness.ts';

let h: Harness;
beforeAll(() => {
  h = harness();
});
afterAll(() => h.close());

describe('GET /tts/voices', () => {
  it('lists every embedded voice as a bare array in the hosted shape', async () => {
    const u = h.user();
    const res = await h.call('GET', '/tts/voices', { key: u.key });
    expect(res.status).toBe(200);
    const voices = res.body as { id: string; provider: string; gender: string; languages: { locale: string }[] }[];
    expect(Array.isArray(voices)).toBe(true);
    expect(voices.filter((v) => v.provider === 'flite')).toHaveLength(4);
    expect(voices.filter((v) => v.provider === 'espeak').length).toBeGreaterThanOrEqual(34);
    for (const v of voices) {
      expect(v).toMatchObject({ access: 'public', styles: expect.any(Array) });
      expect(['male', 'female']).toContain(v.gender);
      expect(v.languages.length).toBeGreaterThan(0);
    }
    // Both genders for the consent languages espeak speaks (Filipino has no voice: docs/voices.md).
    for (const lang of ['nl', 'tr', 'sv', 'id', 'cs', 'ro', 'da', 'ms', 'sk', 'hr', 'en', 'pl', 'de', 'es', 'fr', 'it', 'pt']) {
      const genders = new Set(voices.filter((v) => v.provider === 'espeak' && v.languages.some((l) => l.locale.split('-')[0] === lang)).map((v) => v.gender));
      expect([...genders].sort(), lang).toEqual(['female', 'male']);
    }
  });

  it('filters by provider and by id, and refuses an unknown provider with a 400', async () => {
    const u = h.user();
    const flite = await h.call('GET', '/tts/voices?provider=flite', { key: u.key });
    expect((flite.body as { provider: string }[]).every((v) => v.provider === 'flite')).toBe(true);
    const one = await h.call('GET', '/tts/voices?id=en-US-flite-slt', { key: u.key });
    expect(one.body).toEqual([expect.objectContaining({ id: 'en-US-flite-slt', gender: 'female', provider: 'flite' })]);
    expect((await h.call('GET', '/tts/voices?provider=microsoft', { key: u.key })).body).toEqual([]);
    const bad = await h.call('GET', '/tts/voices?provider=acme', { key: u.key });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ kind: 'ValidationError', details: [{ field: 'provider' }] });
  });

  it('is behind the API key', async () => {
    expect((await h.call('GET', '/tts/voices')).status).toBe(401);
  });
});
