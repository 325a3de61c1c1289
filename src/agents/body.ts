import { ApiError } from '../errors.ts';
import type { FieldError } from '../schemas/ajv.ts';

/**
 * What an agent body may carry before it meets its JSON Schema: the hosted spellings and the
 * known-harmless extras real clients send are folded in or dropped; what mimic refuses on
 * principle (a raw credential) or cannot honour (knowledge bases, triggers) is a 400 that
 * says what to do instead, and never echoes the value. docs/agents.md lists each case.
 */

type Json = Record<string, unknown>;

export const bad = (field: string, message: string): ApiError =>
  new ApiError('BadRequestError', `Invalid request body: ${field} ${message}`, [{ field, message } satisfies FieldError]);

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Fields that would hold a credential in clear text, wherever they sit in `llm` or `llm.custom`. */
const RAW_CREDENTIALS = ['key', 'api_key', 'apiKey', 'token', 'password', 'client_secret', 'clientSecret', 'access_token', 'bearer'];

/** Header names that carry credentials: they go in a vault secret, not in `llm.custom.headers`. */
const CREDENTIAL_HEADER = /auth|cookie|key|token|secret|passw|session|signature/i;

const STORE_AS_SECRET = 'is a credential: store it with POST /secrets and give its id as llm.secret_id (agent bodies never carry credentials)';

const hasUserInfo = (url: string): boolean => {
  try {
    const u = new URL(url);
    return u.username !== '' || u.password !== '';
  } catch {
    return false; // not a URL: the schema says so
  }
};

/** Refuses raw credentials anywhere mimic would otherwise keep them. The message never contains the value. */
export function refuseRawCredentials(body: Json): void {
  const llm = body.llm;
  if (!isObject(llm)) return;
  for (const [where, obj] of [['llm', llm], ['llm.custom', llm.custom]] as const) {
    if (!isObject(obj)) continue;
    for (const name of RAW_CREDENTIALS) if (obj[name] !== undefined) throw bad(`${where}.${name}`, STORE_AS_SECRET);
    for (const name of ['base_url', 'url']) {
      if (typeof obj[name] === 'string' && hasUserInfo(obj[name] as string)) throw bad(`${where}.${name}`, `carries credentials (user:password@): ${STORE_AS_SECRET.replace(/^is a credential: /, '')}`);
    }
    const headers = (obj as Json).headers;
    if (isObject(headers)) {
      for (const name of Object.keys(headers)) if (CREDENTIAL_HEADER.test(name)) throw bad(`${where}.headers.${name}`, STORE_AS_SECRET);
    }
  }
}

/** Hosted fields with no mimic counterpart yet: refused, never silently ignored. */
export function refuseUnsupported(body: Json): void {
  if (body.knowledge !== undefined && body.knowledge !== null) {
    throw bad('knowledge', 'is not supported: mimic has no knowledge bases (documents) yet; remove it, or put what the agent must know in llm.instructions');
  }
  if (body.triggers !== undefined && body.triggers !== null) throw bad('triggers', 'is not supported yet (no chat/end webhooks); remove it');
}

/**
 * The hosted spellings and the harmless extras, on a copy: `llm.secretId` is `llm.secret_id`;
 * `llm.type` (sent by the hosted service's agents demo beside `provider`) is dropped; a
 * `knowledge: null` or `triggers: null` means none.
 */
export function normalize(body: Json): Json {
  const out: Json = { ...body };
  if (out.knowledge === null) delete out.knowledge;
  if (out.triggers === null) delete out.triggers;
  if (isObject(out.llm)) {
    const llm: Json = { ...out.llm };
    delete llm.type;
    if (llm.secretId !== undefined) {
      if (llm.secret_id !== undefined && llm.secret_id !== llm.secretId) throw bad('llm.secretId', 'and llm.secret_id name different secrets: give one');
      llm.secret_id = llm.secretId;
      delete llm.secretId;
    }
    out.llm = llm;
  }
  return out;
}

/**
 * Deeper than any field of an agent nests. A merge patch is walked recursively, so a deeper one
 * (10,000 levels fit in a small body) is refused before it could overflow the stack (a 500).
 */
export const MAX_PATCH_DEPTH = 64;

/** RFC 7396 JSON merge patch: objects merge, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown, depth = 1): unknown {
  if (!isObject(patch)) return patch;
  if (depth > MAX_PATCH_DEPTH) throw bad('body', `nests objects more than ${MAX_PATCH_DEPTH} levels deep`);
  const out: Json = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v, depth + 1);
  }
  return out;
}

/** Fields of the agent as shown that a PATCH cannot change: a GET answer sent back as it is still applies. */
const SHOWN_ONLY = ['created_at', 'modified_at', 'preview_thumbnail', 'metadata'];

/**
 * A PATCH body without the fields only shown (ignored, so that an agent read with GET can be
 * edited and sent back); `id` and `owner_id` may be sent only with their current values.
 */
export function withoutShownFields(patch: Json, current: { id: string; owner_id: string }): Json {
  const out: Json = { ...patch };
  for (const field of ['id', 'owner_id'] as const) {
    if (out[field] !== undefined && out[field] !== current[field]) throw bad(field, 'cannot be changed');
    delete out[field];
  }
  for (const field of SHOWN_ONLY) delete out[field];
  return out;
}

/**
 * A PATCH body applied to the agent as written: a merge patch, except that a presenter of
 * another `type` or an llm of another `provider` replaces the old one (their fields differ).
 */
export function mergeAgent(current: Json, patch: Json): Json {
  const p = normalize(patch);
  const merged = mergePatch(current, p) as Json;
  for (const [field, tag] of [['presenter', 'type'], ['llm', 'provider']] as const) {
    const next = p[field];
    const before = current[field];
    if (isObject(next) && isObject(before) && next[tag] !== undefined && next[tag] !== before[tag]) merged[field] = next;
  }
  return merged;
}
