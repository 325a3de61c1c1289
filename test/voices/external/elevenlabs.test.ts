import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANARY } from '../../helpers/canaries.ts';
import { createElevenLabsProvider } from '../../../src/voices/external/index.ts';
import { wordsOfAlignment } from '../../../src/voices/external/elevenlabs.ts';
import { parseProviders, type ElevenLabsConfig } from '../../../src/voices/settings.ts';
import { failure, json, leaksOf, pcmBytes, sine, vendorWorld, type VendorWorld } from './vendor.ts';

/** ElevenLabs' wire format on loopback: GET /v1/voices and "Create speech with timing". */
let w: VendorWorld;
let keySecret: string;
let config: ElevenLabsConfig;

const VOICES = {
  voices: [
    { voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', category: 'premade', labels: { accent: 'american', description: 'calm', age: 'young', gender: 'female', use_case: 'narration' } },
    { voice_id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', labels: { gender: 'male', language: 'de' } },
    { voice_id: 'clone0000000000000001', name: 'My clone', labels: {} },
  ],
};

/** The documented answer: base64 of 16-bit PCM and per-character times, for `text` spoken one character per 50 ms. */
function timedAnswer(text: string, samples: Int16Array) {
  const characters = [...text];
  return {
    audio_base64: pcmBytes(samples).toString('base64'),
    alignment: {
      characters,
      character_start_times_seconds: characters.map((_, i) => i * 0.05),
      character_end_times_seconds: characters.map((_, i) => (i + 1) * 0.05),
    },
    normalized_alignment: null,
  };
}

beforeAll(async () => {
  w = await vendorWorld();
  keySecret = await w.secret({ type: 'api_key', provider: 'elevenlabs', api_key: CANARY.apiKey, header_name: 'X-Other' });
});
afterAll(async () => w.close());
beforeEach(() => {
  w.vendor.received.length = 0;
  config = parseProviders(JSON.stringify([{ type: 'elevenlabs', secret_id: keySecret, base_url: w.vendor.url, timeout_ms: 1000 }]))[0] as ElevenLabsConfig;
  w.vendor.handle((req, res) => {
    if (req.method === 'GET' && req.path === '/v1/voices') return json(res, 200, VOICES);
    const m = /^\/v1\/text-to-speech\/([^/?]+)\/with-timestamps\?output_format=pcm_24000$/.exec(req.path);
    if (req.method === 'POST' && m) {
      if (m[1] !== '21m00Tcm4TlvDq8ikWAM') return json(res, 404, { detail: { status: 'voice_not_found', message: 'A voice with that id was not found.' } });
      return json(res, 200, timedAnswer((JSON.parse(req.body.toString()) as { text: string }).text, sine(300)));
    }
    json(res, 404, { detail: 'no route' });
  });
});

describe('elevenlabs voices', () => {
  it('lists the voices with gender and language from their labels, sending the key in xi-api-key (whatever header_name the secret has)', async () => {
    const voices = await createElevenLabsProvider(config, w.deps).voices();
    expect(voices).toEqual([
      {
        id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', gender: 'female', provider: 'elevenlabs', access: 'public',
        languages: [{ language: 'English', locale: 'en' }], styles: ['narration'], description: 'american, calm, young',
      },
      { id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', gender: 'male', provider: 'elevenlabs', access: 'public', languages: [{ language: 'German', locale: 'de' }], styles: [] },
    ]);
    const [req] = w.vendor.received;
    expect(req!.headers['xi-api-key']).toBe(CANARY.apiKey);
    expect(req!.headers['x-other']).toBeUndefined();
  });

  it('synthesizes with timestamps: {text, model_id}, raw 24 kHz PCM, and words timed from the characters', async () => {
    const speech = await createElevenLabsProvider(config, w.deps).synthesize({ text: 'Hi you', voiceId: '21m00Tcm4TlvDq8ikWAM' });
    const [req] = w.vendor.received;
    expect(JSON.parse(req!.body.toString())).toEqual({ text: 'Hi you', model_id: 'eleven_multilingual_v2' });
    expect(req!.headers['content-type']).toBe('application/json');
    expect(req!.headers['xi-api-key']).toBe(CANARY.apiKey);
    expect(speech.pcm).toEqual(sine(300));
    expect(speech.sampleRate).toBe(24_000);
    expect(speech.durationMs).toBe(300);
    expect(speech.words).toEqual([
      { text: 'Hi', startMs: 0, endMs: 100 },
      { text: 'you', startMs: 150, endMs: 300 },
    ]);
    expect(speech.phonemes).toEqual([]);
  });

  it('reduces an SSML script to its text, and shifts word times of later pieces of a long text', async () => {
    const p = createElevenLabsProvider(config, w.deps);
    await p.synthesize({ text: "<speak>Tom &amp; Jerry<break time='1s'/>run</speak>", voiceId: '21m00Tcm4TlvDq8ikWAM', ssml: true });
    expect(JSON.parse(w.vendor.received[0]!.body.toString()).text).toBe('Tom & Jerry run');

    w.vendor.received.length = 0;
    const long = `${'word '.repeat(600)}end. ${'more '.repeat(300)}`.trim();
    const speech = await p.synthesize({ text: long, voiceId: '21m00Tcm4TlvDq8ikWAM' });
    expect(w.vendor.received.length).toBe(2);
    const second = speech.words[(JSON.parse(w.vendor.received[0]!.body.toString()).text as string).split(' ').length]!;
    expect(second.startMs).toBe(300); // the second piece starts after the first piece's 300 ms of audio
  });

  it('a voice the vendor does not know is unknown-voice; other failures are vendor errors without the key', async () => {
    const p = createElevenLabsProvider(config, w.deps);
    const missing = await failure(p.synthesize({ text: 'hello', voiceId: 'nosuchvoice' }));
    expect(missing.reason).toBe('unknown-voice');
    expect(missing.message).toBe('elevenlabs has no voice "nosuchvoice" (HTTP 404, voice_not_found)');
    expect((await failure(p.synthesize({ text: 'hello', voiceId: '../../v1/user' }))).reason).toBe('unknown-voice');

    w.vendor.handle((req, res) => json(res, 401, { detail: { status: 'invalid_api_key', message: `Invalid API key: ${String(req.headers['xi-api-key'])}` } }));
    const denied = await failure(p.synthesize({ text: 'hello', voiceId: '21m00Tcm4TlvDq8ikWAM' }));
    expect(denied.message).toMatch(/^elevenlabs refused the credential of secret sec_\S+ \(HTTP 401, invalid_api_key\)/);

    // A vendor whose error code is the key itself: the code is dropped.
    w.vendor.handle((req, res) => json(res, 429, { detail: { status: String(req.headers['xi-api-key']) } }));
    const limited = await failure(p.synthesize({ text: 'hello', voiceId: '21m00Tcm4TlvDq8ikWAM' }));
    expect(limited.message).toBe('elevenlabs is rate limiting or out of quota (HTTP 429); try again later');

    w.vendor.handle((_req, res) => json(res, 200, { alignment: null }));
    const noAudio = await failure(p.synthesize({ text: 'hello', voiceId: '21m00Tcm4TlvDq8ikWAM' }));
    expect(noAudio.message).toBe('elevenlabs sent a synthesis answer without audio_base64');

    w.vendor.handle((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"audio_base64": '));
    expect((await failure(p.synthesize({ text: 'hello', voiceId: '21m00Tcm4TlvDq8ikWAM' }))).message).toBe('elevenlabs sent a synthesis answer that is not JSON');
    expect(leaksOf(missing, denied, limited, noAudio)).toEqual([]);
  });

  it('times out cleanly, and a cancelled synthesis stops waiting at once', async () => {
    w.vendor.handle(() => undefined);
    const p = createElevenLabsProvider(config, w.deps);
    expect((await failure(p.synthesize({ text: 'hello', voiceId: '21m00Tcm4TlvDq8ikWAM' }))).message).toBe('elevenlabs synthesis: the vendor did not answer within 1000 ms');

    const controller = new AbortController();
    const pending = p.synthesize({ text: 'hello', voiceId: '21m00Tcm4TlvDq8ikWAM', signal: controller.signal });
    controller.abort();
    expect((await failure(pending)).reason).toBe('aborted');
  });

  it('malformed alignment gives no words rather than wrong ones', () => {
    expect(wordsOfAlignment({ characters: ['a', 'b'], character_start_times_seconds: [0], character_end_times_seconds: [0.1, 0.2] })).toEqual([]);
    expect(wordsOfAlignment({ characters: ['a', 7], character_start_times_seconds: [0, 1], character_end_times_seconds: [1, 2] })).toEqual([]);
    expect(wordsOfAlignment(undefined)).toEqual([]);
  });
});
