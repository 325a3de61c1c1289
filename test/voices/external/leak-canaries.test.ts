import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANARY } from '../../helpers/canaries.ts';
import { createVoiceCatalogue } from '../../../src/voices/catalogue.ts';
import { createExternalProviders } from '../../../src/voices/external/index.ts';
import { parseProviders } from '../../../src/voices/settings.ts';
import { json, leaksOf, pcmBytes, sine, vendorWorld, wavOf, type VendorWorld } from './vendor.ts';

/**
 * The leak canaries of the external voices. Known credentials sit in the vault; three vendors
 * on loopback echo every credential header back: in voice names and descriptions, in error
 * bodies, in error codes, in response headers. Every voice list, speech result, clone, error
 * (message, stack, JSON) and log line must be free of them; the harness's close() checks the
 * logs, responses, audit rows and database files too. The vendors must have received the
 * credential, or this test would prove nothing.
 */
let w: VendorWorld;
let mode: 'ok' | 'fail' = 'ok';
const STATUSES = [400, 401, 403, 404, 429, 500, 503];
let status = 401;

const echoed = (headers: Record<string, unknown>) => String(headers['ocp-apim-subscription-key'] ?? headers['xi-api-key'] ?? headers.authorization ?? '');

beforeAll(async () => {
  w = await vendorWorld();
  w.vendor.handle((req, res) => {
    const cred = echoed(req.headers);
    const bare = cred.replace(/^Bearer /, '');
    if (mode === 'fail') {
      res.writeHead(status, { 'content-type': 'application/json', 'x-echo': cred, 'www-authenticate': `Bearer realm="${cred}"` });
      return void res.end(JSON.stringify({ error: { message: `bad key ${cred}`, code: bare, type: cred }, detail: { status: bare, message: cred }, echoed: req.headers }));
    }
    if (req.path === '/cognitiveservices/voices/list') {
      return json(res, 200, [{ ShortName: `en-US-${bare}`, DisplayName: cred, Gender: 'Female', Locale: 'en-US', LocaleName: `English ${cred}`, StyleList: [cred] }]);
    }
    if (req.path === '/v1/voices/add') return json(res, 200, { voice_id: 'clone1', requires_verification: false, debug: cred, name: `Echo ${cred}` });
    if (req.path === '/v1/voices') return json(res, 200, { voices: [{ voice_id: 'v1', name: `Echo ${cred}`, labels: { gender: 'male', description: cred, use_case: bare } }] });
    if (req.path.includes('/with-timestamps')) {
      return json(res, 200, { audio_base64: pcmBytes(sine(100)).toString('base64'), alignment: { characters: ['h', 'i'], character_start_times_seconds: [0, 0.05], character_end_times_seconds: [0.05, 0.1] }, debug: cred });
    }
    res.writeHead(200, { 'content-type': 'audio/wav', 'x-echo': cred }).end(wavOf(sine(100)));
  });
});
afterAll(async () => w.close());

describe('external voice leak canaries', () => {
  it('no credential in any voice list, speech, error or log line, whatever the vendor echoes', async () => {
    const apiKey = await w.secret({ type: 'api_key', provider: 'speech', api_key: CANARY.apiKey });
    const bearer = await w.secret({ type: 'bearer', provider: 'openai', token: CANARY.bearer });
    const providers = createExternalProviders(
      parseProviders(JSON.stringify([
        { type: 'microsoft', region: 'westeurope', secret_id: apiKey, base_url: w.vendor.url },
        { type: 'elevenlabs', secret_id: apiKey, base_url: w.vendor.url },
        { type: 'openai', secret_id: bearer, base_url: `${w.vendor.url}/v1` },
      ])),
      w.deps,
    );
    const voiceOf = { microsoft: 'en-US-JennyNeural', elevenlabs: 'v1', openai: 'nova' } as Record<string, string>;
    const seen: unknown[] = [];

    const voices = await createVoiceCatalogue({ providers, fallback: 'local' }).list();
    expect(voices.map((v) => v.provider).sort()).toEqual(['elevenlabs', 'microsoft', ...Array(11).fill('openai')]);
    seen.push(voices);
    for (const p of providers) seen.push(await p.synthesize({ text: 'Hello there', voiceId: voiceOf[p.type]!, ssml: false }));

    mode = 'fail';
    for (const s of STATUSES) {
      status = s;
      for (const p of providers) {
        seen.push(await p.synthesize({ text: 'Hello there', voiceId: voiceOf[p.type]! }).catch((e: unknown) => e));
      }
    }
    const fresh = createExternalProviders(parseProviders(JSON.stringify([{ type: 'microsoft', region: 'westeurope', secret_id: apiKey, base_url: w.vendor.url }])), w.deps);
    seen.push(await fresh[0]!.voices().catch((e: unknown) => e));

    // The vendors did get the credentials, in their headers.
    const sent = w.vendor.received.map((r) => echoed(r.headers));
    expect(sent).toContain(CANARY.apiKey);
    expect(sent).toContain(`Bearer ${CANARY.bearer}`);
    // The failures are real errors, and nothing anyone sees holds a credential.
    expect(seen.filter((s) => s instanceof Error)).toHaveLength(STATUSES.length * 3 + 1);
    expect(leaksOf(...seen)).toEqual([]);
    expect(leaksOf(w.h.logs)).toEqual([]);
    expect(w.h.logs.length).toBeGreaterThan(0);
  });

  it('no credential in a voice clone or deletion result or error, whatever the vendor echoes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mimic-clone-canary-'));
    try {
      const sample = join(dir, 'speech.wav');
      await writeFile(sample, wavOf(sine(500)));
      const apiKey = await w.secret({ type: 'api_key', provider: 'elevenlabs', api_key: CANARY.apiKey });
      const [eleven] = createExternalProviders(parseProviders(JSON.stringify([{ type: 'elevenlabs', secret_id: apiKey, base_url: w.vendor.url }])), w.deps);
      w.vendor.received.length = 0;
      const seen: unknown[] = [];
      mode = 'ok';
      seen.push(await eleven!.clone!({ name: 'Echo', samplePath: sample, gender: 'male' }));
      expect(seen[0]).toEqual({ voiceId: 'clone1' });
      mode = 'fail';
      for (const s of STATUSES) {
        status = s;
        seen.push(await eleven!.clone!({ name: 'Echo', samplePath: sample }).catch((e: unknown) => e));
        seen.push(await eleven!.deleteClone!('clone1').then(() => 'deleted', (e: unknown) => e));
      }
      expect(w.vendor.received.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /v1/voices/add',
        ...STATUSES.flatMap(() => ['POST /v1/voices/add', 'DELETE /v1/voices/clone1']),
      ]);
      expect(w.vendor.received.every((r) => echoed(r.headers) === CANARY.apiKey)).toBe(true);
      // Every status fails both calls, except a deletion's 404 (the voice is already gone).
      expect(seen.filter((s) => s instanceof Error)).toHaveLength(STATUSES.length * 2 - 1);
      expect(leaksOf(...seen)).toEqual([]);
      expect(leaksOf(w.h.logs)).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
