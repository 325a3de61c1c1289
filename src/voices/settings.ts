import { ConfigurationError, int, type Env } from '../config.ts';
import type { ConfigSection } from '../platform/module.ts';

/**
 * The voices module's section of the configuration. External providers are configured as a
 * JSON list in MIMIC_VOICE_PROVIDERS; each names the vault secret that holds its credential
 * by id (never the credential itself). docs/voices-external.md explains each field.
 */

export const EXTERNAL_PROVIDERS = ['microsoft', 'elevenlabs', 'openai'] as const;
export type ExternalProviderType = (typeof EXTERNAL_PROVIDERS)[number];

interface Common {
  /** The vault secret (POST /secrets) whose value authenticates the calls. */
  secretId: string;
  /** Scheme and host (and path prefix) the calls go to, without a trailing slash. */
  baseUrl: string;
  /** Deadline of one synthesis call; MIMIC_VOICE_TIMEOUT_MS unless the entry sets timeout_ms. */
  timeoutMs: number;
}

export interface MicrosoftConfig extends Common {
  type: 'microsoft';
  /** The Azure region of the Speech resource (e.g. westeurope); null when base_url replaces it. */
  region: string | null;
}

export interface ElevenLabsConfig extends Common {
  type: 'elevenlabs';
  modelId: string;
}

/** A voice an OpenAI-compatible server offers besides (or instead of) OpenAI's documented ones. */
export interface ConfiguredVoice {
  id: string;
  name: string;
  gender: 'male' | 'female';
  locale: string;
}

export interface OpenAIConfig extends Common {
  type: 'openai';
  model: string;
  /** The server's voices when they are not OpenAI's (a self-hosted compatible server); null: OpenAI's documented list. */
  voices: ConfiguredVoice[] | null;
}

export type ExternalProviderConfig = MicrosoftConfig | ElevenLabsConfig | OpenAIConfig;

export interface VoiceSettings {
  /** What a script naming an external voice whose provider is not configured gets: the closest embedded voice, or an error. */
  fallback: 'local' | 'error';
  providers: ExternalProviderConfig[];
  /** Worker threads for embedded synthesis. */
  workers: number;
  /** Deadline of a voice list call (GET /tts/voices waits for it when the list is not cached). */
  listTimeoutMs: number;
}

export const DEFAULT_BASE_URLS = {
  elevenlabs: 'https://api.elevenlabs.io',
  openai: 'https://api.openai.com/v1',
} as const;
export const DEFAULT_ELEVENLABS_MODEL = 'eleven_multilingual_v2';
export const DEFAULT_OPENAI_MODEL = 'tts-1';
const DEFAULT_TIMEOUT_MS = 60_000;

const KEYS: Record<ExternalProviderType, readonly string[]> = {
  microsoft: ['type', 'secret_id', 'base_url', 'timeout_ms', 'region'],
  elevenlabs: ['type', 'secret_id', 'base_url', 'timeout_ms', 'model_id'],
  openai: ['type', 'secret_id', 'base_url', 'timeout_ms', 'model', 'voices'],
};

const SECRET_ID = /^sec_[A-Za-z0-9_-]{1,100}$/;
const REGION = /^[a-z0-9]{2,40}$/;
const MODEL = /^[A-Za-z0-9._:/-]{1,100}$/;
const VOICE_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** Names the entry in messages: its position and, once known, its type. */
const where = (i: number, type?: string) => `MIMIC_VOICE_PROVIDERS[${i}]${type ? ` (${type})` : ''}`;

function optionalString(entry: Record<string, unknown>, key: string, at: string): string | undefined {
  const v = entry[key];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v === '') throw new ConfigurationError(`${at}: ${key} must be a non-empty string`);
  return v;
}

/** http(s), no user info, no query or fragment; the guarded client applies the egress policy to the host. */
function baseUrlOf(raw: string, at: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigurationError(`${at}: base_url is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigurationError(`${at}: base_url must be an https (or http) URL, got ${url.protocol}`);
  if (url.username || url.password) throw new ConfigurationError(`${at}: base_url must not carry user info (the credential is the secret's)`);
  if (url.search || url.hash) throw new ConfigurationError(`${at}: base_url must not have a query string or fragment`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** `voices` of an openai entry: [{id, gender, locale?, name?}], ids unique. */
function voicesOf(raw: unknown, at: string): ConfiguredVoice[] | null {
  if (raw === undefined) return null;
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > 500) throw new ConfigurationError(`${at}: voices must be a list of 1 to 500 voices`);
  const seen = new Set<string>();
  return raw.map((v: unknown, j): ConfiguredVoice => {
    const here = `${at}: voices[${j}]`;
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigurationError(`${here} must be an object {id, gender, locale?, name?}`);
    const o = v as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => !['id', 'gender', 'locale', 'name'].includes(k));
    if (extra.length) throw new ConfigurationError(`${here}: unknown field(s) ${extra.join(', ')}; allowed: id, gender, locale, name`);
    if (typeof o.id !== 'string' || !VOICE_ID.test(o.id)) throw new ConfigurationError(`${here}: id must be 1 to 100 letters, digits or . _ : -`);
    if (seen.has(o.id)) throw new ConfigurationError(`${here}: id ${o.id} is listed twice`);
    seen.add(o.id);
    if (o.gender !== 'male' && o.gender !== 'female') throw new ConfigurationError(`${here}: gender must be male or female`);
    if (o.locale !== undefined && (typeof o.locale !== 'string' || !LOCALE.test(o.locale))) throw new ConfigurationError(`${here}: locale must be a BCP 47 tag such as en-US`);
    if (o.name !== undefined && (typeof o.name !== 'string' || o.name.length < 1 || o.name.length > 100)) throw new ConfigurationError(`${here}: name must be 1 to 100 characters`);
    return { id: o.id, gender: o.gender, locale: (o.locale as string | undefined) ?? 'en-US', name: (o.name as string | undefined) ?? o.id };
  });
}

function entryOf(raw: unknown, i: number, defaultTimeoutMs: number): ExternalProviderConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigurationError(`${where(i)} must be an object`);
  const entry = raw as Record<string, unknown>;
  const type = entry.type;
  if (typeof type !== 'string' || !(EXTERNAL_PROVIDERS as readonly string[]).includes(type)) {
    throw new ConfigurationError(`${where(i)}: type must be one of ${EXTERNAL_PROVIDERS.join(', ')}, got ${JSON.stringify(type ?? null)?.slice(0, 60)}`);
  }
  const t = type as ExternalProviderType;
  const at = where(i, t);
  const unknown = Object.keys(entry).filter((k) => !KEYS[t].includes(k));
  if (unknown.length) throw new ConfigurationError(`${at}: unknown field(s) ${unknown.join(', ')}; allowed: ${KEYS[t].join(', ')}`);

  const secretId = entry.secret_id;
  if (secretId === undefined) throw new ConfigurationError(`${at}: secret_id is required (the id of the vault secret that holds the credential)`);
  if (typeof secretId !== 'string' || !SECRET_ID.test(secretId)) {
    throw new ConfigurationError(`${at}: secret_id must be a secret id such as sec_...; put the credential in the vault (POST /secrets), never here`);
  }
  const timeout = entry.timeout_ms;
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout < 1000 || timeout > 600_000)) {
    throw new ConfigurationError(`${at}: timeout_ms must be an integer from 1000 to 600000`);
  }
  const timeoutMs = (timeout as number | undefined) ?? defaultTimeoutMs;
  const base = optionalString(entry, 'base_url', at);

  switch (t) {
    case 'microsoft': {
      const region = optionalString(entry, 'region', at);
      if (region !== undefined && !REGION.test(region)) throw new ConfigurationError(`${at}: region must be an Azure region name such as westeurope`);
      if (region === undefined && base === undefined) throw new ConfigurationError(`${at}: region is required (or base_url)`);
      return { type: t, secretId, region: region ?? null, baseUrl: baseUrlOf(base ?? `https://${region}.tts.speech.microsoft.com`, at), timeoutMs };
    }
    case 'elevenlabs': {
      const modelId = optionalString(entry, 'model_id', at) ?? DEFAULT_ELEVENLABS_MODEL;
      if (!MODEL.test(modelId)) throw new ConfigurationError(`${at}: model_id has characters a model id does not have`);
      return { type: t, secretId, modelId, baseUrl: baseUrlOf(base ?? DEFAULT_BASE_URLS.elevenlabs, at), timeoutMs };
    }
    case 'openai': {
      const model = optionalString(entry, 'model', at) ?? DEFAULT_OPENAI_MODEL;
      if (!MODEL.test(model)) throw new ConfigurationError(`${at}: model has characters a model name does not have`);
      return { type: t, secretId, model, baseUrl: baseUrlOf(base ?? DEFAULT_BASE_URLS.openai, at), timeoutMs, voices: voicesOf(entry.voices, at) };
    }
  }
}

/** Parses MIMIC_VOICE_PROVIDERS: a JSON list, one entry per external provider type at most. */
export function parseProviders(raw: string | undefined, defaultTimeoutMs = DEFAULT_TIMEOUT_MS): ExternalProviderConfig[] {
  if (raw === undefined || raw.trim() === '') return [];
  let list: unknown;
  try {
    list = JSON.parse(raw);
  } catch {
    // The parser's message may quote the text, which an operator might have pasted a key into.
    throw new ConfigurationError('MIMIC_VOICE_PROVIDERS is not valid JSON (expected a list such as [{"type":"openai","secret_id":"sec_..."}])');
  }
  if (!Array.isArray(list)) throw new ConfigurationError('MIMIC_VOICE_PROVIDERS must be a JSON list of provider objects');
  const out = list.map((entry, i) => entryOf(entry, i, defaultTimeoutMs));
  const seen = new Set<string>();
  for (const p of out) {
    if (seen.has(p.type)) throw new ConfigurationError(`MIMIC_VOICE_PROVIDERS names ${p.type} twice; a script chooses a provider by its type, so one entry per type`);
    seen.add(p.type);
  }
  return out;
}

function fallbackOf(env: Env): VoiceSettings['fallback'] {
  const raw = env.MIMIC_VOICE_FALLBACK;
  if (raw === undefined || raw === '') return 'local';
  if (raw === 'local' || raw === 'error') return raw;
  throw new ConfigurationError(`MIMIC_VOICE_FALLBACK must be local or error, got "${raw.slice(0, 40)}"`);
}

export const voiceSettings: ConfigSection<VoiceSettings> = {
  variables: [
    { name: 'MIMIC_VOICE_FALLBACK', default: 'local', description: 'a script naming an external voice whose provider is not configured: local (the closest embedded voice) or error' },
    { name: 'MIMIC_VOICE_PROVIDERS', default: '[]', description: 'JSON list of external providers (microsoft, elevenlabs, openai), each with the secret_id of its credential; docs/voices-external.md' },
    { name: 'MIMIC_VOICE_WORKERS', default: '1', description: 'worker threads for embedded speech synthesis (1 to 16)' },
    { name: 'MIMIC_VOICE_TIMEOUT_MS', default: String(DEFAULT_TIMEOUT_MS), description: 'deadline of one external synthesis call (1000 to 600000); an entry may set its own timeout_ms' },
    { name: 'MIMIC_VOICE_LIST_TIMEOUT_MS', default: '5000', description: "deadline of an external provider's voice list call (500 to 60000)" },
  ],
  load: (env) => ({
    fallback: fallbackOf(env),
    providers: parseProviders(env.MIMIC_VOICE_PROVIDERS, int(env, 'MIMIC_VOICE_TIMEOUT_MS', DEFAULT_TIMEOUT_MS, 1000, 600_000)),
    workers: int(env, 'MIMIC_VOICE_WORKERS', 1, 1, 16),
    listTimeoutMs: int(env, 'MIMIC_VOICE_LIST_TIMEOUT_MS', 5000, 500, 60_000),
  }),
};
