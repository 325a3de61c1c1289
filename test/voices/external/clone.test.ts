import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANARY } from '../../helpers/canaries.ts';
import { createVoiceCatalogue } from '../../../src/voices/catalogue.ts';
import { cachedVoiceList } from '../../../src/voices/external/cache.ts';
import { createElevenLabsProvider, createExternalProviders } from '../../../src/voices/external/index.ts';
import { MAX_SAMPLE_BYTES } from '../../../src/voices/external/sample.ts';
import type { Speech, Voice, VoiceProvider } from '../../../src/voices/interface.ts';
import { parseProviders, type ElevenLabsConfig } from '../../../src/voices/settings.ts';
import type { ReceivedRequest } from '../../helpers/tls.ts';
import { failure, json, leaksOf, pcmBytes, sine, vendorWorld, wavOf, type VendorWorld } from './vendor.ts';

/**
 * Voice cloning through ElevenLabs ("Add voice", POST /v1/voices/add) on the loopback vendor:
 * the multipart upload as the vendor receives it, the voice id it answers, the failures, and
 * the new voice afterwards listed and speaking.
 */
let w: VendorWorld;
let keySecret: string;
let config: ElevenLabsConfig;
let dir: string;
let wav: string;
const SAMPLE = wavOf(sine(1500));
const CLONE_ID = 'cloneAbc123_-XYZ';

/** The vendor's clones, as its GET /v1/voices lists them after an add. */
let clones: { voice_id: string; name: string; labels: Record<string, string> }[] = [];

/** The multipart body as a standard parser reads it (the fields, and the file parts' bytes). */
async function formOf(req: ReceivedRequest) {
  const form = await new Response(req.body, { headers: { 'content-type': String(req.headers['content-type']) } }).formData();
  const files = await Promise.all(
    form.getAll('files').map(async (f) => {
      const file = f as File;
      return { name: file.name, type: file.type, bytes: Buffer.from(await file.arrayBuffer()) };
    }),
  );
  const fields = Object.fromEntries([...form.entries()].filter(([k]) => k !== 'files').map(([k, v]) => [k, String(v)]));
  return { fields, files };
}

async function sampleFile(name: string, bytes: Buffer | string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, bytes);
  return path;
}

beforeAll(async () => {
  w = await vendorWorld();
  keySecret = await w.secret({ type: 'api_key', provider: 'elevenlabs', api_key: CANARY.apiKey });
  dir = await mkdtemp(join(tmpdir(), 'mimic-clone-'));
  wav = await sampleFile('speech.wav', SAMPLE);
});
afterAll(async () => {
  await w.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  w.vendor.received.length = 0;
  clones = [];
  config = parseProviders(JSON.stringify([{ type: 'elevenlabs', secret_id: keySecret, base_url: w.vendor.url, timeout_ms: 2000 }]))[0] as ElevenLabsConfig;
  w.vendor.handle(async (req, res) => {
    if (req.method === 'GET' && req.path === '/v1/voices') {
      return json(res, 200, { voices: [{ voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', labels: { gender: 'female' } }, ...clones] });
    }
    if (req.method === 'POST' && req.path === '/v1/voices/add') {
      const { fields } = await formOf(req);
      clones.push({ voice_id: CLONE_ID, name: fields.name!, labels: JSON.parse(fields.labels ?? '{}') as Record<string, string> });
      return json(res, 200, { voice_id: CLONE_ID, requires_verification: false });
    }
    const del = /^\/v1\/voices\/([^/?]+)$/.exec(req.path);
    if (req.method === 'DELETE' && del) {
      if (!clones.some((c) => c.voice_id === del[1])) return json(res, 404, { detail: { status: 'voice_not_found' } });
      clones = clones.filter((c) => c.voice_id !== del[1]);
      return json(res, 200, { status: 'ok' });
    }
    const m = /^\/v1\/text-to-speech\/([^/?]+)\/with-timestamps\?/.exec(req.path);
    if (req.method === 'POST' && m && clones.some((c) => c.voice_id === m[1])) {
      return json(res, 200, { audio_base64: pcmBytes(sine(200)).toString('base64'), alignment: null });
    }
    json(res, 404, { detail: { status: 'voice_not_found' } });
  });
});

describe('elevenlabs voice cloning', () => {
  it('uploads the sample as multipart/form-data (name, description, labels, one files part) with the key in xi-api-key, and answers the voice id', async () => {
    const p = createElevenLabsProvider(config, w.deps);
    const made = await p.clone!({ name: 'Anna (avatar av_1)', samplePath: wav, description: 'Cloned from the footage of avatar av_1', gender: 'female', locale: 'de-DE' });
    expect(made).toEqual({ voiceId: CLONE_ID });

    const [req] = w.vendor.received;
    expect(req!.method).toBe('POST');
    expect(req!.path).toBe('/v1/voices/add');
    expect(req!.headers['xi-api-key']).toBe(CANARY.apiKey);
    expect(String(req!.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    const { fields, files } = await formOf(req!);
    expect(fields).toEqual({ name: 'Anna (avatar av_1)', description: 'Cloned from the footage of avatar av_1', labels: '{"gender":"female","language":"de"}' });
    expect(files).toHaveLength(1);
    expect(files[0]!.name).toBe('sample.wav');
    expect(files[0]!.type).toBe('audio/wav');
    expect(files[0]!.bytes.equals(SAMPLE)).toBe(true);
  });

  it('sends an MP3 as audio/mpeg, and leaves out the fields that were not given', async () => {
    const mp3 = await sampleFile('speech.mp3', Buffer.concat([Buffer.from('ID3\x04\x00\x00\x00\x00\x00\x00', 'latin1'), Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(4000, 7)]));
    await createElevenLabsProvider(config, w.deps).clone!({ name: '  Bob  ', samplePath: mp3 });
    const { fields, files } = await formOf(w.vendor.received[0]!);
    expect(fields).toEqual({ name: 'Bob' });
    expect(files.map((f) => [f.name, f.type, f.bytes.length])).toEqual([['sample.mp3', 'audio/mpeg', 4014]]);
  });

  it('the new voice is listed at once (the cached list is refreshed) and speaks by its id', async () => {
    const p = createElevenLabsProvider(config, w.deps);
    const catalogue = createVoiceCatalogue({ providers: [p], fallback: 'error' });
    expect((await p.voices()).map((v) => v.id)).toEqual(['21m00Tcm4TlvDq8ikWAM']);
    const { voiceId } = await catalogue.cloner()!.clone!({ name: 'Anna', samplePath: wav, gender: 'female' });
    // No clock movement: without the invalidation, the hour-long cache would hide the clone.
    const listed = await catalogue.list({ provider: 'elevenlabs' });
    expect(listed.map((v) => [v.id, v.name, v.gender])).toEqual([
      ['21m00Tcm4TlvDq8ikWAM', 'Rachel', 'female'],
      [CLONE_ID, 'Anna', 'female'],
    ]);
    const resolved = await catalogue.resolve({ type: 'elevenlabs', voiceId });
    expect(resolved.provider).toBe(p);
    const speech = await p.synthesize({ text: 'Hello', voiceId });
    expect(speech.voice).toEqual({ provider: 'elevenlabs', voiceId: CLONE_ID });
    expect(speech.pcm).toEqual(sine(200));
    expect(w.vendor.received.filter((r) => r.path === '/v1/voices')).toHaveLength(2);
  });

  it('deletes a clone (DELETE /v1/voices/{id}): it leaves the list at once, and one already gone counts as deleted', async () => {
    const p = createElevenLabsProvider(config, w.deps);
    const { voiceId } = await p.clone!({ name: 'Anna', samplePath: wav, gender: 'female' });
    expect((await p.voices()).map((v) => v.id)).toContain(voiceId);
    w.vendor.received.length = 0;
    await p.deleteClone!(voiceId);
    expect(w.vendor.received.map((r) => [r.method, r.path, r.headers['xi-api-key']])).toEqual([['DELETE', `/v1/voices/${CLONE_ID}`, CANARY.apiKey]]);
    expect((await p.voices()).map((v) => v.id)).toEqual(['21m00Tcm4TlvDq8ikWAM']);
    await p.deleteClone!(voiceId); // the vendor answers 404 now
    expect(w.vendor.received.filter((r) => r.method === 'DELETE')).toHaveLength(2);

    w.vendor.received.length = 0;
    expect((await failure(p.deleteClone!('../user'))).reason).toBe('unknown-voice');
    expect(w.vendor.received).toHaveLength(0);
    w.vendor.handle((_req, res) => json(res, 401, { detail: { status: 'invalid_api_key' } }));
    expect((await failure(p.deleteClone!(voiceId))).message).toMatch(/^elevenlabs refused the credential of secret sec_\S+ \(HTTP 401, invalid_api_key\)/);
    w.vendor.handle((_req, res) => json(res, 500, {}));
    expect((await failure(p.deleteClone!(voiceId))).message).toBe('elevenlabs failed to answer the voice deletion request (HTTP 500)');
  });

  it('records the use of the secret in the audit trail', async () => {
    await createElevenLabsProvider(config, w.deps).clone!({ name: 'Anna', samplePath: wav });
    const res = await w.h.call('GET', `/audit?action=secret.used&secret_id=${keySecret}`, { key: w.key });
    const [event] = res.body.events as { outcome: string; detail: Record<string, unknown> }[];
    expect([event!.outcome, event!.detail.provider, event!.detail.upstream_status]).toEqual(['success', 'elevenlabs', 200]);
  });

  it('vendor refusals are SpeechErrors naming the status, never the key', async () => {
    const p = createElevenLabsProvider(config, w.deps);
    w.vendor.handle((req, res) => json(res, 401, { detail: { status: 'invalid_api_key', message: `Invalid API key: ${String(req.headers['xi-api-key'])}` } }));
    const denied = await failure(p.clone!({ name: 'Anna', samplePath: wav }));
    expect(denied.reason).toBe('vendor');
    expect(denied.message).toMatch(/^elevenlabs refused the credential of secret sec_\S+ \(HTTP 401, invalid_api_key\): check the key$/);

    w.vendor.handle((req, res) => json(res, 422, { detail: [{ loc: ['body', 'files'], msg: `bad file from ${String(req.headers['xi-api-key'])}`, type: 'value_error' }] }));
    const unprocessable = await failure(p.clone!({ name: 'Anna', samplePath: wav }));
    expect(unprocessable.message).toBe('elevenlabs refused the voice cloning request (HTTP 422)');

    w.vendor.handle((_req, res) => json(res, 400, { detail: { status: 'voice_limit_reached', message: 'You have reached your maximum amount of custom voices' } }));
    expect((await failure(p.clone!({ name: 'Anna', samplePath: wav }))).message).toBe('elevenlabs refused the voice cloning request (HTTP 400, voice_limit_reached)');
    expect(leaksOf(denied, unprocessable)).toEqual([]);
  });

  it('a bad answer is a vendor error: not JSON, no voice_id, a voice_id that is not an id (an echoed key is masked first), a voice that needs verification (deleted again)', async () => {
    const p = createElevenLabsProvider(config, w.deps);
    const answers: [unknown, string][] = [
      ['{"voice_id": ', 'elevenlabs sent a voice cloning answer that is not JSON'],
      [{ requires_verification: false }, 'elevenlabs sent a voice cloning answer without a usable voice_id'],
      [{ voice_id: '../../v1/user' }, 'elevenlabs sent a voice cloning answer without a usable voice_id'],
      [{ voice_id: 'ECHO' }, 'elevenlabs sent a voice cloning answer without a usable voice_id'],
      // The deletion that follows gets the same 200 answer: it succeeds.
      [{ voice_id: 'needsCheck1', requires_verification: true }, 'elevenlabs requires voice needsCheck1 to be verified before it speaks, which mimic cannot do; the voice was deleted again'],
    ];
    const seen = [];
    for (const [answer, message] of answers) {
      w.vendor.handle((req, res) => {
        if (typeof answer === 'string') return void res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
        const body = JSON.stringify(answer).replace('ECHO', String(req.headers['xi-api-key']));
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
      const err = await failure(p.clone!({ name: 'Anna', samplePath: wav }));
      expect(err.message).toBe(message);
      seen.push(err);
    }
    expect(w.vendor.received.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual(['/v1/voices/needsCheck1']);
    w.vendor.handle((req, res) =>
      req.method === 'DELETE' ? json(res, 500, {}) : json(res, 200, { voice_id: 'needsCheck2', requires_verification: true }),
    );
    expect((await failure(p.clone!({ name: 'Anna', samplePath: wav }))).message).toBe(
      'elevenlabs requires voice needsCheck2 to be verified before it speaks, which mimic cannot do; deleting it failed, so it is still in the ElevenLabs account',
    );
    // The canary key has the shape of a voice id: only its masking kept it out of the result.
    expect(CANARY.apiKey).toMatch(/^[A-Za-z0-9_-]{1,100}$/);
    expect(leaksOf(...seen)).toEqual([]);
  });

  it('refuses an oversize, empty, unreadable or non-audio sample before any call to the vendor', async () => {
    const p = createElevenLabsProvider(config, w.deps);
    const big = await sampleFile('big.wav', Buffer.concat([SAMPLE.subarray(0, 44), Buffer.alloc(MAX_SAMPLE_BYTES)]));
    const oversize = await failure(p.clone!({ name: 'Anna', samplePath: big }));
    expect(oversize.reason).toBe('invalid-sample');
    expect(oversize.message).toBe(`the voice sample is ${MAX_SAMPLE_BYTES + 44} bytes, more than the ${MAX_SAMPLE_BYTES} bytes mimic uploads`);

    const cases: [string, string][] = [
      [await sampleFile('empty.wav', ''), 'the voice sample is empty'],
      [join(dir, 'missing.wav'), 'the voice sample cannot be read (ENOENT)'],
      [dir, 'the voice sample is not a file'],
      [await sampleFile('notes.txt', 'this is not audio at all'), 'the voice sample is neither a WAV nor an MP3 file'],
      [await sampleFile('video.mp4', Buffer.from('\x00\x00\x00\x20ftypisom\x00\x00\x02\x00', 'latin1')), 'the voice sample is neither a WAV nor an MP3 file'],
    ];
    for (const [path, message] of cases) {
      const err = await failure(p.clone!({ name: 'Anna', samplePath: path }));
      expect([err.reason, err.message]).toEqual(['invalid-sample', message]);
    }
    expect((await failure(p.clone!({ name: '   ', samplePath: wav }))).message).toBe('a cloned voice needs a name');
    expect(w.vendor.received).toHaveLength(0);
  });

  it("times out at the provider's deadline, and a cancelled clone stops waiting at once", async () => {
    w.vendor.handle(() => undefined);
    const p = createElevenLabsProvider({ ...config, timeoutMs: 1000 }, w.deps);
    expect((await failure(p.clone!({ name: 'Anna', samplePath: wav }))).message).toBe('elevenlabs voice cloning: the vendor did not answer within 1000 ms');
    const controller = new AbortController();
    const pending = p.clone!({ name: 'Anna', samplePath: wav, signal: controller.signal });
    controller.abort();
    const cancelled = await failure(pending);
    expect([cancelled.reason, cancelled.message]).toEqual(['aborted', 'the elevenlabs voice cloning was cancelled']);
  });
});

describe('the catalogue cloner', () => {
  const embedded = (type: 'espeak' | 'flite'): VoiceProvider => ({
    type,
    voices: async (): Promise<Voice[]> => [],
    synthesize: async (): Promise<Speech> => {
      throw new Error('not used');
    },
    // Even an embedded provider that claimed to clone is never the cloner.
    clone: async () => ({ voiceId: 'never' }),
  });
  const externals = (entries: Record<string, unknown>[]) =>
    createExternalProviders(parseProviders(JSON.stringify(entries.map((e) => ({ secret_id: keySecret, base_url: w.vendor.url, ...e })))), w.deps);

  it('is the elevenlabs provider when one is configured', () => {
    const providers = [embedded('flite'), embedded('espeak'), ...externals([{ type: 'microsoft', region: 'westeurope' }, { type: 'elevenlabs' }, { type: 'openai' }])];
    const cloner = createVoiceCatalogue({ providers, fallback: 'local' }).cloner();
    expect(cloner?.type).toBe('elevenlabs');
    expect(cloner).toBe(providers.find((p) => p.type === 'elevenlabs'));
  });

  it('is absent with only embedded voices, or with only providers that cannot clone (microsoft, openai)', () => {
    expect(createVoiceCatalogue({ providers: [embedded('flite'), embedded('espeak')], fallback: 'local' }).cloner()).toBeUndefined();
    const providers = [embedded('flite'), ...externals([{ type: 'microsoft', region: 'westeurope' }, { type: 'openai' }])];
    expect(providers.filter((p) => p.clone || p.deleteClone)).toHaveLength(1); // the embedded double only
    expect(createVoiceCatalogue({ providers, fallback: 'local' }).cloner()).toBeUndefined();
  });
});

describe('voice list invalidation', () => {
  it('makes the next call ask again, and a call begun before it does not count as fresh', async () => {
    let calls = 0;
    let release: (() => void) | undefined;
    const load = async (): Promise<Voice[]> => {
      calls++;
      const n = calls;
      if (n === 2) await new Promise<void>((r) => (release = r));
      return [{ id: `v${n}`, name: `v${n}`, gender: 'male', provider: 'elevenlabs', access: 'public', languages: [], styles: [] }];
    };
    const list = cachedVoiceList('elevenlabs', load, w.clock, w.h.services.log);
    expect((await list()).map((v) => v.id)).toEqual(['v1']);
    expect((await list()).map((v) => v.id)).toEqual(['v1']);
    expect(calls).toBe(1);

    list.invalidate();
    const slow = list(); // call 2, held
    list.invalidate(); // a voice was added while call 2 was under way
    const next = list(); // call 3: not the held one
    expect((await next).map((v) => v.id)).toEqual(['v3']);
    release!();
    expect((await slow).map((v) => v.id)).toEqual(['v2']);
    // Call 2 ended after the invalidation: its list did not replace call 3's as the fresh one.
    expect((await list()).map((v) => v.id)).toEqual(['v3']);
    expect(calls).toBe(3);
  });
});
