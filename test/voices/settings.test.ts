import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/config.ts';
import { voiceSettings } from '../../src/voices/settings.ts';

/** MIMIC_VOICE_*: defaults, every accepted form, and a clear refusal for every bad value. */
const load = (env: Record<string, string>) => voiceSettings.load(env);
const providers = (list: unknown) => load({ MIMIC_VOICE_PROVIDERS: typeof list === 'string' ? list : JSON.stringify(list) }).providers;
const refusal = (env: Record<string, string>): string => {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigurationError) return err.message;
    throw err;
  }
  throw new Error('expected a ConfigurationError');
};
const refusalOf = (list: unknown) => refusal({ MIMIC_VOICE_PROVIDERS: typeof list === 'string' ? list : JSON.stringify(list) });

describe('voice settings', () => {
  it('defaults: local fallback, no external provider, one worker', () => {
    expect(load({})).toEqual({ fallback: 'local', providers: [], workers: 1, listTimeoutMs: 5000 });
    expect(load({ MIMIC_VOICE_PROVIDERS: ' ', MIMIC_VOICE_FALLBACK: '' }).providers).toEqual([]);
  });

  it('documents every variable it reads', () => {
    expect(voiceSettings.variables.map((v) => v.name)).toEqual(['MIMIC_VOICE_FALLBACK', 'MIMIC_VOICE_PROVIDERS', 'MIMIC_VOICE_WORKERS', 'MIMIC_VOICE_TIMEOUT_MS', 'MIMIC_VOICE_LIST_TIMEOUT_MS']);
  });

  it('reads the fallback, workers and timeouts, and refuses bad ones', () => {
    expect(load({ MIMIC_VOICE_FALLBACK: 'error', MIMIC_VOICE_WORKERS: '4', MIMIC_VOICE_LIST_TIMEOUT_MS: '800' })).toMatchObject({ fallback: 'error', workers: 4, listTimeoutMs: 800 });
    expect(refusal({ MIMIC_VOICE_FALLBACK: 'remote' })).toBe('MIMIC_VOICE_FALLBACK must be local or error, got "remote"');
    expect(refusal({ MIMIC_VOICE_WORKERS: '0' })).toMatch(/MIMIC_VOICE_WORKERS must be an integer from 1 to 16/);
    expect(refusal({ MIMIC_VOICE_WORKERS: '2.5' })).toMatch(/MIMIC_VOICE_WORKERS/);
    expect(refusal({ MIMIC_VOICE_TIMEOUT_MS: '10' })).toMatch(/MIMIC_VOICE_TIMEOUT_MS must be an integer from 1000 to 600000/);
    expect(refusal({ MIMIC_VOICE_LIST_TIMEOUT_MS: '100000' })).toMatch(/MIMIC_VOICE_LIST_TIMEOUT_MS/);
  });

  it('reads the three providers with their defaults', () => {
    const got = load({
      MIMIC_VOICE_TIMEOUT_MS: '30000',
      MIMIC_VOICE_PROVIDERS: JSON.stringify([
        { type: 'microsoft', region: 'westeurope', secret_id: 'sec_a' },
        { type: 'elevenlabs', secret_id: 'sec_b', timeout_ms: 90000 },
        { type: 'openai', secret_id: 'sec_c', base_url: 'http://tts.internal:8880/v1/', model: 'gpt-4o-mini-tts' },
      ]),
    }).providers;
    expect(got).toEqual([
      { type: 'microsoft', secretId: 'sec_a', region: 'westeurope', baseUrl: 'https://westeurope.tts.speech.microsoft.com', timeoutMs: 30000 },
      { type: 'elevenlabs', secretId: 'sec_b', modelId: 'eleven_multilingual_v2', baseUrl: 'https://api.elevenlabs.io', timeoutMs: 90000 },
      { type: 'openai', secretId: 'sec_c', model: 'gpt-4o-mini-tts', baseUrl: 'http://tts.internal:8880/v1', timeoutMs: 30000, voices: null },
    ]);
    expect(providers([{ type: 'openai', secret_id: 'sec_c' }])[0]).toMatchObject({ model: 'tts-1', baseUrl: 'https://api.openai.com/v1', timeoutMs: 60000 });
    expect(providers([{ type: 'microsoft', secret_id: 'sec_a', base_url: 'https://speech.proxy.example/azure' }])[0]).toMatchObject({ region: null, baseUrl: 'https://speech.proxy.example/azure' });
  });

  it.each([
    ['not JSON', '[{"type":', /MIMIC_VOICE_PROVIDERS is not valid JSON/],
    ['not a list', { type: 'openai' }, /must be a JSON list/],
    ['an entry that is not an object', ['openai'], /MIMIC_VOICE_PROVIDERS\[0\] must be an object/],
    ['unknown type', [{ type: 'polly', secret_id: 'sec_a' }], /MIMIC_VOICE_PROVIDERS\[0\]: type must be one of microsoft, elevenlabs, openai, got "polly"/],
    ['embedded type', [{ type: 'espeak', secret_id: 'sec_a' }], /type must be one of microsoft, elevenlabs, openai/],
    ['missing type', [{ secret_id: 'sec_a' }], /type must be one of .*got null/],
    ['missing secret_id', [{ type: 'openai' }], /MIMIC_VOICE_PROVIDERS\[0\] \(openai\): secret_id is required/],
    ['a credential in place of secret_id', [{ type: 'openai', secret_id: 'sk-live-abc' }], /secret_id must be a secret id such as sec_\.\.\.; put the credential in the vault/],
    ['a credential field', [{ type: 'openai', secret_id: 'sec_a', api_key: 'sk-1' }], /unknown field\(s\) api_key; allowed: type, secret_id, base_url, timeout_ms, model, voices$/],
    ['a field of another type', [{ type: 'openai', secret_id: 'sec_a', region: 'westeurope' }], /unknown field\(s\) region/],
    ['microsoft without region or base_url', [{ type: 'microsoft', secret_id: 'sec_a' }], /\(microsoft\): region is required \(or base_url\)/],
    ['a region that is not a name', [{ type: 'microsoft', secret_id: 'sec_a', region: 'west europe' }], /region must be an Azure region name/],
    ['a region that would change the host', [{ type: 'microsoft', secret_id: 'sec_a', region: 'evil.example/x' }], /region must be an Azure region name/],
    ['base_url not a URL', [{ type: 'openai', secret_id: 'sec_a', base_url: 'api.openai.com' }], /base_url is not a URL/],
    ['base_url ftp', [{ type: 'openai', secret_id: 'sec_a', base_url: 'ftp://x.example' }], /base_url must be an https \(or http\) URL, got ftp:/],
    ['base_url with user info', [{ type: 'openai', secret_id: 'sec_a', base_url: 'https://u:p@x.example' }], /base_url must not carry user info/],
    ['base_url with a query', [{ type: 'openai', secret_id: 'sec_a', base_url: 'https://x.example/v1?key=1' }], /must not have a query string or fragment/],
    ['base_url empty', [{ type: 'openai', secret_id: 'sec_a', base_url: '' }], /base_url must be a non-empty string/],
    ['a bad model', [{ type: 'openai', secret_id: 'sec_a', model: 'tts 1' }], /model has characters/],
    ['a bad model_id', [{ type: 'elevenlabs', secret_id: 'sec_a', model_id: 42 }], /model_id must be a non-empty string/],
    ['timeout_ms too small', [{ type: 'openai', secret_id: 'sec_a', timeout_ms: 5 }], /timeout_ms must be an integer from 1000 to 600000/],
    ['timeout_ms a string', [{ type: 'openai', secret_id: 'sec_a', timeout_ms: '5000' }], /timeout_ms must be an integer/],
    ['voices on another type', [{ type: 'elevenlabs', secret_id: 'sec_a', voices: [] }], /unknown field\(s\) voices/],
    ['voices empty', [{ type: 'openai', secret_id: 'sec_a', voices: [] }], /voices must be a list of 1 to 500 voices/],
    ['a voice without gender', [{ type: 'openai', secret_id: 'sec_a', voices: [{ id: 'af_bella' }] }], /voices\[0\]: gender must be male or female/],
    ['a voice with a bad id', [{ type: 'openai', secret_id: 'sec_a', voices: [{ id: 'a b', gender: 'male' }] }], /voices\[0\]: id must be/],
    ['a voice twice', [{ type: 'openai', secret_id: 'sec_a', voices: [{ id: 'a', gender: 'male' }, { id: 'a', gender: 'female' }] }], /voices\[1\]: id a is listed twice/],
    ['a voice with a bad locale', [{ type: 'openai', secret_id: 'sec_a', voices: [{ id: 'a', gender: 'male', locale: 'English' }] }], /locale must be a BCP 47 tag/],
    ['a voice with an unknown field', [{ type: 'openai', secret_id: 'sec_a', voices: [{ id: 'a', gender: 'male', style: 'x' }] }], /unknown field\(s\) style; allowed: id, gender, locale, name/],
    ['the same type twice', [{ type: 'openai', secret_id: 'sec_a' }, { type: 'openai', secret_id: 'sec_b' }], /names openai twice/],
  ])('refuses %s', (_name, list, message) => {
    expect(refusalOf(list)).toMatch(message);
  });

  it("reads an OpenAI-compatible server's own voices", () => {
    expect(providers([{ type: 'openai', secret_id: 'sec_c', voices: [{ id: 'af_bella', gender: 'female' }, { id: 'ef_dora', gender: 'female', locale: 'es-ES', name: 'Dora' }] }])[0]).toMatchObject({
      voices: [{ id: 'af_bella', gender: 'female', locale: 'en-US', name: 'af_bella' }, { id: 'ef_dora', gender: 'female', locale: 'es-ES', name: 'Dora' }],
    });
  });

  it('never repeats what was pasted into a broken JSON value', () => {
    expect(refusalOf('[{"type":"openai","secret_id":"sk-live-VERYSECRET"')).not.toContain('VERYSECRET');
  });
});
