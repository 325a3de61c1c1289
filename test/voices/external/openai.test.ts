import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANARY } from '../../helpers/canaries.ts';
import { createOpenAIProvider } from '../../../src/voices/external/index.ts';
import { parseProviders, type OpenAIConfig } from '../../../src/voices/settings.ts';
import { failure, json, leaksOf, sine, vendorWorld, wavOf, type VendorWorld } from './vendor.ts';

/** An OpenAI-compatible POST {base}/audio/speech on loopback, answering WAV as OpenAI streams it. */
let w: VendorWorld;
let bearerSecret: string;
let config: OpenAIConfig;

beforeAll(async () => {
  w = await vendorWorld();
  bearerSecret = await w.secret({ type: 'bearer', provider: 'openai', token: CANARY.bearer });
});
afterAll(async () => w.close());
beforeEach(() => {
  w.vendor.received.length = 0;
  config = parseProviders(JSON.stringify([{ type: 'openai', secret_id: bearerSecret, base_url: `${w.vendor.url}/v1`, timeout_ms: 1000 }]))[0] as OpenAIConfig;
  w.vendor.handle((req, res) => {
    if (req.method === 'POST' && req.path === '/v1/audio/speech') return void res.writeHead(200, { 'content-type': 'audio/wav' }).end(wavOf(sine(400), 24_000, { streamed: true }));
    json(res, 404, { error: { message: 'Unknown request URL', type: 'invalid_request_error', code: 'unknown_url' } });
  });
});

describe('openai voices', () => {
  it('lists the documented voices without calling the vendor', async () => {
    const voices = await createOpenAIProvider(config, w.deps).voices();
    expect(voices.map((v) => v.id)).toEqual(['alloy', 'ash', 'ballad', 'coral', 'echo', 'fable', 'onyx', 'nova', 'sage', 'shimmer', 'verse']);
    expect(voices.find((v) => v.id === 'onyx')).toEqual({
      id: 'onyx', name: 'Onyx', gender: 'male', provider: 'openai', access: 'public', languages: [{ language: 'English', locale: 'en-US' }], styles: [], description: 'OpenAI tts-1',
    });
    expect(w.vendor.received).toHaveLength(0);
  });

  it('synthesizes: {model, input, voice, response_format: wav, speed} with Authorization: Bearer, a streamed WAV decoded', async () => {
    const speech = await createOpenAIProvider(config, w.deps).synthesize({ text: 'Hello there.', voiceId: 'nova', rate: 1.25 });
    const [req] = w.vendor.received;
    expect(req!.headers.authorization).toBe(`Bearer ${CANARY.bearer}`);
    expect(JSON.parse(req!.body.toString())).toEqual({ model: 'tts-1', input: 'Hello there.', voice: 'nova', response_format: 'wav', speed: 1.25 });
    expect(speech.pcm).toEqual(sine(400));
    expect(speech.durationMs).toBe(400);
    expect(speech.voice).toEqual({ provider: 'openai', voiceId: 'nova' });
  });

  it('a stereo WAV with an extra chunk is read and mixed to mono; speed is kept within 0.25 to 4', async () => {
    w.vendor.handle((_req, res) => void res.writeHead(200, { 'content-type': 'audio/wav' }).end(wavOf(sine(200, 22_050), 22_050, { channels: 2, extraChunk: true })));
    const speech = await createOpenAIProvider(config, w.deps).synthesize({ text: 'Hello there.', voiceId: 'alloy', rate: 10 });
    expect(speech.sampleRate).toBe(22_050);
    expect(speech.pcm).toEqual(sine(200, 22_050));
    expect(JSON.parse(w.vendor.received[0]!.body.toString()).speed).toBe(4);
  });

  it('refuses a voice outside the list before calling, and splits input longer than 4096 characters', async () => {
    const p = createOpenAIProvider(config, w.deps);
    const err = await failure(p.synthesize({ text: 'hello', voiceId: 'constructor' }));
    expect(err.reason).toBe('unknown-voice');
    expect(w.vendor.received).toHaveLength(0);

    const text = 'Lorem ipsum dolor sit amet. '.repeat(400).trim();
    await p.synthesize({ text, voiceId: 'echo' });
    const inputs = w.vendor.received.map((r) => JSON.parse(r.body.toString()).input as string);
    expect(inputs.length).toBe(3);
    expect(inputs.every((i) => i.length <= 4096)).toBe(true);
    expect(inputs.join(' ')).toBe(text);
  });

  it("lists and speaks a compatible server's own voices when the entry names them", async () => {
    const own = parseProviders(JSON.stringify([{ type: 'openai', secret_id: bearerSecret, base_url: `${w.vendor.url}/v1`, model: 'kokoro', voices: [{ id: 'ef_dora', gender: 'female', locale: 'es-ES', name: 'Dora' }] }]))[0] as OpenAIConfig;
    const p = createOpenAIProvider(own, w.deps);
    expect(await p.voices()).toEqual([{ id: 'ef_dora', name: 'Dora', gender: 'female', provider: 'openai', access: 'public', languages: [{ language: 'Spanish', locale: 'es-ES' }], styles: [], description: 'OpenAI kokoro' }]);
    await p.synthesize({ text: 'Hola', voiceId: 'ef_dora' });
    expect(JSON.parse(w.vendor.received[0]!.body.toString())).toMatchObject({ model: 'kokoro', voice: 'ef_dora' });
    expect((await failure(p.synthesize({ text: 'Hola', voiceId: 'nova' }))).reason).toBe('unknown-voice');
  });

  it('maps errors, and a rotated secret is used at the next call (nothing caches the plaintext)', async () => {
    const p = createOpenAIProvider(config, w.deps);
    w.vendor.handle((req, res) => json(res, 401, { error: { message: `Incorrect API key provided: ${String(req.headers.authorization)}`, type: 'invalid_request_error', code: 'invalid_api_key' } }));
    const denied = await failure(p.synthesize({ text: 'hello', voiceId: 'nova' }));
    expect(denied.message).toMatch(/^openai refused the credential of secret sec_\S+ \(HTTP 401, invalid_api_key\)/);
    w.vendor.handle((_req, res) => json(res, 503, { error: { message: 'overloaded', type: 'server_error', code: null } }));
    expect((await failure(p.synthesize({ text: 'hello', voiceId: 'nova' }))).message).toBe('openai failed to answer the synthesis request (HTTP 503, server_error)');
    expect(leaksOf(denied)).toEqual([]);

    const put = await w.h.call('PUT', `/secrets/${bearerSecret}`, { key: w.key, body: { token: CANARY.rotatedBearer } });
    expect(put.status).toBe(200);
    w.vendor.received.length = 0;
    w.vendor.handle((_req, res) => void res.writeHead(200, { 'content-type': 'audio/wav' }).end(wavOf(sine(100))));
    await p.synthesize({ text: 'hello', voiceId: 'nova' });
    expect(w.vendor.received[0]!.headers.authorization).toBe(`Bearer ${CANARY.rotatedBearer}`);
  });

  it('times out cleanly', async () => {
    w.vendor.handle(() => undefined);
    const err = await failure(createOpenAIProvider(config, w.deps).synthesize({ text: 'hello', voiceId: 'nova' }));
    expect(err.message).toBe('openai synthesis: the vendor did not answer within 1000 ms');
  });
});
