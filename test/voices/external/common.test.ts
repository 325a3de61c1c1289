import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CANARY } from '../../helpers/canaries.ts';
import { createGuardedClient } from '../../../src/egress/index.ts';
import { createVoiceCatalogue } from '../../../src/voices/catalogue.ts';
import { createExternalProviders, createMicrosoftProvider, providerSecretProblems, VOICE_LIST_RETRY_MS, VOICE_LIST_TTL_MS } from '../../../src/voices/external/index.ts';
import { parseProviders, type ExternalProviderConfig, type MicrosoftConfig } from '../../../src/voices/settings.ts';
import { failure, json, sine, vendorWorld, wavOf, type VendorWorld } from './vendor.ts';
import { SECRET_STORE } from '../../../src/secrets/contract.ts';

/** What all external providers share: the secret check, the guarded client, the cached voice lists. */
let w: VendorWorld;
let apiKey: string;
let bearer: string;
let basic: string;

const AZURE = [{ ShortName: 'en-US-JennyNeural', DisplayName: 'Jenny', Gender: 'Female', Locale: 'en-US', LocaleName: 'English (United States)' }];
const listCalls = () => w.vendor.received.filter((r) => r.method === 'GET').length;

beforeAll(async () => {
  w = await vendorWorld();
  apiKey = await w.secret({ type: 'api_key', provider: 'azure', api_key: CANARY.apiKey });
  bearer = await w.secret({ type: 'bearer', provider: 'openai', token: CANARY.bearer });
  basic = await w.secret({ type: 'basic', provider: 'x', username: CANARY.basicUser, password: CANARY.basicPassword });
});
afterAll(async () => w.close());
beforeEach(() => {
  w.vendor.received.length = 0;
  w.vendor.handle((req, res) => {
    if (req.path === '/cognitiveservices/voices/list') return json(res, 200, AZURE);
    if (req.path === '/v1/voices') return json(res, 503, { detail: { status: 'down' } });
    res.writeHead(200, { 'content-type': 'audio/wav' }).end(wavOf(sine(100)));
  });
});

const configs = (entries: object[]): ExternalProviderConfig[] => parseProviders(JSON.stringify(entries));
const microsoft = (secretId: string, base = w.vendor.url) => configs([{ type: 'microsoft', region: 'westeurope', secret_id: secretId, base_url: base }])[0] as MicrosoftConfig;

describe('external provider secrets', () => {
  it('refuses a secret of the wrong type, or a missing one, at the first call, before decrypting or calling', async () => {
    const [ms, el, oa] = createExternalProviders(
      configs([
        { type: 'microsoft', region: 'westeurope', secret_id: bearer, base_url: w.vendor.url },
        { type: 'elevenlabs', secret_id: 'sec_doesnotexist', base_url: w.vendor.url },
        { type: 'openai', secret_id: basic, base_url: w.vendor.url },
      ]),
      w.deps,
    );
    const wrong = await failure(ms!.synthesize({ text: 'hello', voiceId: 'en-US-JennyNeural' }));
    expect(wrong.reason).toBe('vendor');
    expect(wrong.message).toBe(`the microsoft voice provider's secret ${bearer} is a bearer secret; microsoft needs an api_key secret (its value is sent as Ocp-Apim-Subscription-Key)`);
    expect((await failure(el!.synthesize({ text: 'hello', voiceId: 'abc' }))).message).toMatch(/secret sec_doesnotexist does not exist: create an api_key secret/);
    expect((await failure(oa!.synthesize({ text: 'hello', voiceId: 'nova' }))).message).toMatch(/is a basic secret; openai needs a bearer secret/);
    expect(w.vendor.received).toHaveLength(0);
  });

  it('tells an operator at start what is wrong with the configured secrets, reading rows only', async () => {
    const store = w.h.services.find(SECRET_STORE)!;
    const good = configs([
      { type: 'microsoft', region: 'westeurope', secret_id: apiKey },
      { type: 'elevenlabs', secret_id: apiKey },
      { type: 'openai', secret_id: bearer },
    ]);
    expect(await providerSecretProblems(good, store)).toEqual([]);
    const bad = configs([{ type: 'elevenlabs', secret_id: bearer }, { type: 'openai', secret_id: 'sec_gone' }]);
    expect(await providerSecretProblems(bad, store)).toEqual([
      `the elevenlabs voice provider's secret ${bearer} is a bearer secret; elevenlabs needs an api_key secret (its value is sent as xi-api-key)`,
      "the openai voice provider's secret sec_gone does not exist: create a bearer secret (POST /secrets) and put its id in MIMIC_VOICE_PROVIDERS",
    ]);
  });
});

describe('audit', () => {
  it("records each use of a secret in its owner's trail: provider, upstream status, never a value", async () => {
    const [ms] = createExternalProviders(configs([{ type: 'microsoft', region: 'westeurope', secret_id: apiKey, base_url: w.vendor.url }]), w.deps);
    await ms!.synthesize({ text: 'hello', voiceId: 'en-US-JennyNeural' });
    w.vendor.handle((_req, res) => json(res, 401, {}));
    await failure(ms!.synthesize({ text: 'hello', voiceId: 'en-US-JennyNeural' }));
    const res = await w.h.call('GET', `/audit?action=secret.used&secret_id=${apiKey}`, { key: w.key });
    expect(res.status).toBe(200);
    const events = (res.body.events as { outcome: string; secret_id: string; detail: Record<string, unknown> }[]).slice(0, 2);
    expect(events.map((e) => [e.outcome, e.secret_id, e.detail.provider, e.detail.upstream_status])).toEqual([
      ['failure', apiKey, 'microsoft', 401],
      ['success', apiKey, 'microsoft', 200],
    ]);
    expect(typeof events[0]!.detail.duration_ms).toBe('number');
  });
});

describe('egress', () => {
  it('goes through the guarded client: without an allow entry, a loopback vendor is refused and nothing is sent', async () => {
    const strict = createGuardedClient({ allow: [], ca: [w.vendor.ca], defaultTimeoutMs: 2000, defaultMaxBytes: 1 << 20 });
    try {
      const p = createMicrosoftProvider(microsoft(apiKey), { ...w.deps, client: strict });
      const err = await failure(p.synthesize({ text: 'hello', voiceId: 'en-US-JennyNeural' }));
      expect(err.message).toMatch(/^microsoft synthesis: the vendor could not be called: host localhost resolves to a loopback address, which is not allowed/);
      expect(w.vendor.received).toHaveLength(0);
    } finally {
      await strict.close();
    }
  });
});

describe('voice lists', () => {
  it(`are cached for ${VOICE_LIST_TTL_MS / 60000} minutes per provider, one call for concurrent askers`, async () => {
    const p = createMicrosoftProvider(microsoft(apiKey), w.deps);
    const [a, b] = await Promise.all([p.voices(), p.voices()]);
    expect(a).toEqual(b);
    expect(listCalls()).toBe(1);
    w.clock.advance(VOICE_LIST_TTL_MS - 1);
    await p.voices();
    expect(listCalls()).toBe(1);
    w.clock.advance(2);
    await p.voices();
    expect(listCalls()).toBe(2);
  });

  it('a failing refresh serves the last good list; with none, the failure is remembered for a minute', async () => {
    const p = createMicrosoftProvider(microsoft(apiKey), w.deps);
    const first = await p.voices();
    w.vendor.handle((_req, res) => json(res, 500, {}));
    w.clock.advance(VOICE_LIST_TTL_MS + 1);
    expect(await p.voices()).toEqual(first);
    expect(w.h.logs.some((l) => l.includes('could not list its voices') && l.includes('HTTP 500'))).toBe(true);

    const fresh = createMicrosoftProvider(microsoft(apiKey), w.deps);
    w.vendor.received.length = 0;
    expect((await failure(fresh.voices())).message).toMatch(/HTTP 500/);
    await failure(fresh.voices());
    expect(listCalls()).toBe(1);
    w.clock.advance(VOICE_LIST_RETRY_MS + 1);
    await failure(fresh.voices());
    expect(listCalls()).toBe(2);
  });

  it('one provider failing leaves the others listed', async () => {
    const providers = createExternalProviders(
      configs([
        { type: 'microsoft', region: 'westeurope', secret_id: apiKey, base_url: w.vendor.url },
        { type: 'elevenlabs', secret_id: apiKey, base_url: w.vendor.url },
        { type: 'openai', secret_id: bearer, base_url: w.vendor.url },
      ]),
      w.deps,
    );
    const voices = await createVoiceCatalogue({ providers, fallback: 'local' }).list();
    expect(new Set(voices.map((v) => v.provider))).toEqual(new Set(['microsoft', 'openai']));
    expect(voices).toHaveLength(1 + 11);
  });
});
