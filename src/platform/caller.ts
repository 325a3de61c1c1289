/**
 * The caller: who an authenticated request stands for (`AuthUser`), what they may do
 * (`requirePermission`), and how an Authorization header names their API key. The edge, the
 * kernel and every capability read it, so it sits in the kernel; the users capability keeps
 * the accounts, keys and permission catalogue behind it.
 */
import { createHmac } from 'node:crypto';
import { ApiError } from '../errors.ts';
import { defineServiceKey } from './service-key.ts';
import { deriveKey } from '../keys.ts';

/** How the caller authenticated: an API key, a bearer token (JWT), or (later) a browser's client key. */
export type CallerVia = 'api-key' | 'token' | 'client-key';

/** The caller an API key (or a token) stands for, as every authenticated verb receives it. */
export interface AuthUser {
  id: string;
  name: string | null;
  permissions: readonly string[];
  /**
   * The rate-limit bucket, never a credential: the id of the API key that authenticated the
   * request, of the key a token was exchanged for, of the studio session a token was minted
   * for, or `${clientKeyId}:${externalId}`. Absent only where a caller is built without a key
   * (tests that set a user).
   */
  keyId?: string;
  /** Absent: 'api-key' (callers built before tokens existed). */
  via?: CallerVia;
  /** The studio session a token was minted for. */
  sessionId?: string;
  /** A client key's scope (via 'client-key' only). */
  client?: ClientScope;
}

/** What a browser's client key may reach: one agent, for one end user, from its allowed origins. */
export interface ClientScope {
  clientKeyId: string;
  agentId: string;
  externalId: string;
  connectionId?: string;
  origins: readonly string[];
}

/** Bearer tokens (JWS): the caller one stands for, or null when it is not valid (bad signature, expired, revoked). */
export interface BearerTokens {
  verify(jws: string): Promise<AuthUser | null>;
}

/** Provided by the accounts capability; without a provider no bearer token verifies. */
export const BEARER_TOKENS = defineServiceKey<BearerTokens>('bearerTokens');

/** A compact JWS: three base64url parts (an empty signature too: an unsigned token is refused as a token, not as garbage). */
const JWS_PATTERN = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** `Bearer <h.p.s>` (optionally `~<connection id>`, as the SDK sends): the JWS, else undefined. */
export function bearerTokenFromAuthorization(header: string | undefined): string | undefined {
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) return undefined;
  const token = connectionSplit(m[1]!).credential;
  return JWS_PATTERN.test(token) ? token : undefined;
}

/** The token verifier over the tokens a module provides (BEARER_TOKENS); none: no token verifies. */
export function tokenVerifier(tokens: BearerTokens | undefined): (jws: string) => Promise<AuthUser | null> {
  return tokens ? (jws) => tokens.verify(jws) : async () => null;
}

/** Throws a PermissionError unless the caller holds `permission` (needed for `feature`). */
export function requirePermission(user: AuthUser, permission: string, feature: string): void {
  if (!user.permissions.includes(permission)) {
    throw new ApiError('PermissionError', `Your account lacks the "${permission}" permission required for ${feature}`);
  }
}

export const API_KEY_PATTERN = /^mimic_[A-Za-z0-9_-]{43}$/;

/** `<credential>~<connection id>` (what the hosted service's agents SDK sends), or the credential alone. */
export function connectionSplit(token: string): { credential: string; connectionId?: string } {
  const tilde = token.indexOf('~');
  return tilde < 0 ? { credential: token } : { credential: token.slice(0, tilde), connectionId: token.slice(tilde + 1) };
}

/** The connection id an Authorization header ends in (`Basic <key>~<connection id>`), if any. */
export function connectionIdFromAuthorization(header: string | undefined): string | undefined {
  const m = header ? /^(?:Basic|Bearer)\s+(\S+)\s*$/i.exec(header) : null;
  const id = m ? connectionSplit(m[1]!).connectionId : undefined;
  return id === '' ? undefined : id;
}

/**
 * The key candidates an Authorization header carries. `Basic <API_KEY>` is the documented
 * form; RFC 7617 clients send `Basic base64(user:key)` (the key as password, or as user
 * with an empty password); `Bearer <API_KEY>` is accepted too. Each may end in
 * `~<connection id>`, which is dropped.
 */
export function keysFromAuthorization(header: string | undefined): string[] {
  if (!header) return [];
  const m = /^(Basic|Bearer)\s+(\S+)\s*$/i.exec(header);
  if (!m) return [];
  // The hosted service's SDK appends `~<connection id>` to the credential; it is not part of the key.
  const token = connectionSplit(m[2]!).credential;
  const candidates = [token];
  if (m[1]!.toLowerCase() === 'basic' && !API_KEY_PATTERN.test(token)) {
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon >= 0) candidates.push(decoded.slice(colon + 1), decoded.slice(0, colon));
    else candidates.push(decoded);
  }
  return candidates.filter((k) => API_KEY_PATTERN.test(k));
}

/** An API key's stored form: HMAC-SHA256 under a key derived from the master key (users/api-keys.ts says why that suffices). */
export function hashApiKey(hashKey: Buffer, apiKey: string): string {
  return createHmac('sha256', hashKey).update(apiKey).digest('base64url');
}

/** The owner of an active API key, as the users store answers for its hash. */
export interface KeyOwner {
  keyId: string;
  userId: string;
  name: string | null;
  permissions: string[];
}

/** What the verifier reads of the users store: the owner of a key's hash, and when those answers may have changed. */
export interface KeyOwners {
  ownerOfKey(hash: string): Promise<KeyOwner | undefined>;
  keysVersion(): Promise<number>;
}

/**
 * The one service the kernel declares: the owners of API keys, which the accounts capability
 * (users) provides and the composition root reads to build the key verifier. Without a
 * provider no key verifies.
 */
export const KEY_OWNERS = defineServiceKey<KeyOwners>('keyOwners');

/** Verified keys remembered per process; past this many, the memory starts over. */
const REMEMBERED_KEYS = 10_000;

/**
 * What a verifier remembers of the credentials that verified: kept while the version it is
 * given at each call stays the same (any change to what the store would answer moves it),
 * forgotten whole when it moves, and at most `max` entries (past that, the memory starts over).
 */
export function versionedMemory<V>(max: number): { at(version: string | number): void; get(key: string): V | undefined; set(key: string, value: V): void } {
  const entries = new Map<string, V>();
  let seen: string | number | undefined;
  return {
    at(version) {
      if (version === seen) return;
      entries.clear();
      seen = version;
    },
    get: (key) => entries.get(key),
    set(key, value) {
      if (entries.size >= max) entries.clear();
      entries.set(key, value);
    },
  };
}

/**
 * The authentication hot path. A key seen before is answered from memory while the store's
 * `keysVersion` stays the same: any commit to the database by another connection or
 * process (a revocation from the CLI included; the SQLite store looks for those at most once
 * per millisecond) or any key change through this one moves it, and then every remembered
 * key is checked again. So a revoked key stops working in every process within 1 ms. A new key costs one HMAC and one indexed select.
 * Only keys that verified are remembered: a guessed key is checked every time.
 * The caller carries the id of the key that matched (rate limits are per key, not per user).
 */
export function makeKeyVerifier(deps: { users: KeyOwners; apiKeyHashKey: Buffer }): (apiKey: string) => Promise<AuthUser | null> {
  const remembered = versionedMemory<AuthUser>(REMEMBERED_KEYS);
  return async (apiKey) => {
    // Read before the lookup: a change committed after this read moves the next one.
    remembered.at(await deps.users.keysVersion());
    const known = remembered.get(apiKey);
    if (known) return known;
    const owner = await deps.users.ownerOfKey(hashApiKey(deps.apiKeyHashKey, apiKey));
    if (!owner) return null;
    const user: AuthUser = Object.freeze({ id: owner.userId, name: owner.name, permissions: Object.freeze([...owner.permissions]), keyId: owner.keyId });
    remembered.set(apiKey, user);
    return user;
  };
}

/** The key verifier over the key owners a module provides (KEY_OWNERS), keyed from the master key; without them no key verifies. */
export function keyVerifier(owners: KeyOwners | undefined, masterKey: Buffer): (apiKey: string) => Promise<AuthUser | null> {
  return owners ? makeKeyVerifier({ users: owners, apiKeyHashKey: deriveKey(masterKey, 'api-key-hash') }) : async () => null;
}

/** A browser's client key: `mimic_ck_` and 32 random bytes (base64url: never a `.`, so the SDK form splits at the first one). */
export const CLIENT_KEY_PATTERN = /^mimic_ck_[A-Za-z0-9_-]{43}$/;

/** What `Authorization: Client-Key <key>.<externalId>_<connectionId>` carries. */
export interface ClientKeyCredential {
  key: string;
  externalId: string;
  connectionId?: string;
}

/**
 * The agents SDK's `Client-Key <key>.<externalId>_<connectionId>`: the key ends at the first
 * `.` (a key has none), the connection id starts after the last `_` (the SDK's ids have none),
 * so an external id may hold both. Without a `_` the rest is the external id. Undefined when
 * the header is not of that scheme; `null` when it is but malformed (no key, no external id).
 */
export function clientKeyFromAuthorization(header: string | undefined): ClientKeyCredential | null | undefined {
  const m = header ? /^Client-Key\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) return header !== undefined && /^Client-Key\b/i.test(header) ? null : undefined;
  const value = m[1]!;
  const dot = value.indexOf('.');
  const key = dot < 0 ? value : value.slice(0, dot);
  if (dot < 0 || !CLIENT_KEY_PATTERN.test(key)) return null;
  const rest = value.slice(dot + 1);
  const underscore = rest.lastIndexOf('_');
  const externalId = underscore < 0 ? rest : rest.slice(0, underscore);
  const connectionId = underscore < 0 ? '' : rest.slice(underscore + 1);
  if (externalId === '' || externalId.length > 200) return null;
  return { key, externalId, ...(connectionId ? { connectionId } : {}) };
}

/** The agent and owner of an active client key, as its store answers for its hash (the owner's row read then too). */
export interface ClientKeyOwner {
  clientKeyId: string;
  agentId: string;
  userId: string;
  name: string | null;
  permissions: string[];
  origins: string[];
}

/** What the client-key verifier reads: the owner of a key's hash, and when those answers may have changed. */
export interface ClientKeyOwners {
  ownerOfClientKey(hash: string): Promise<ClientKeyOwner | undefined>;
  /** Moves whenever `ownerOfClientKey` may answer differently (as `KeyOwners.keysVersion`). */
  clientKeysVersion(): Promise<number>;
}

/** Provided by the agents capability; without a provider no client key verifies. */
export const CLIENT_KEY_OWNERS = defineServiceKey<ClientKeyOwners>('clientKeyOwners');

/**
 * Client keys, checked as API keys are: a key seen before is answered from memory while both
 * the client keys' and the users' versions stay the same (a revoked key, a deleted agent or
 * a changed owner moves one), else one HMAC and one indexed select. The caller is the
 * agent's owner, scoped (`client`) to that agent, that end user and the key's origins; its
 * rate-limit bucket is the key and the end user together.
 */
export function makeClientKeyVerifier(deps: { clientKeys: ClientKeyOwners; users?: KeyOwners; hashKey: Buffer }): (credential: ClientKeyCredential) => Promise<AuthUser | null> {
  const remembered = versionedMemory<ClientKeyOwner>(REMEMBERED_KEYS);
  return async ({ key, externalId, connectionId }) => {
    remembered.at(`${await deps.clientKeys.clientKeysVersion()}:${(await deps.users?.keysVersion()) ?? 0}`);
    let owner = remembered.get(key);
    if (!owner) {
      owner = await deps.clientKeys.ownerOfClientKey(hashApiKey(deps.hashKey, key));
      if (!owner) return null;
      remembered.set(key, owner);
    }
    const client: ClientScope = Object.freeze({
      clientKeyId: owner.clientKeyId, agentId: owner.agentId, externalId, origins: owner.origins, ...(connectionId ? { connectionId } : {}),
    });
    return Object.freeze({
      id: owner.userId, name: owner.name, permissions: owner.permissions, keyId: `ck:${owner.clientKeyId}:${externalId}`, via: 'client-key' as const, client,
    });
  };
}

/** The client-key verifier over the owners a module provides (CLIENT_KEY_OWNERS); without them no client key verifies. */
export function clientKeyVerifier(
  clientKeys: ClientKeyOwners | undefined,
  users: KeyOwners | undefined,
  masterKey: Buffer,
): (credential: ClientKeyCredential) => Promise<AuthUser | null> {
  return clientKeys ? makeClientKeyVerifier({ clientKeys, ...(users ? { users } : {}), hashKey: deriveKey(masterKey, 'client-key-hash') }) : async () => null;
}
