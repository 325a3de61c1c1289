import type { Clock, IdFactory } from '../clock.ts';
import { isoTime } from '../clock.ts';
import { ApiError, notFound } from '../errors.ts';
import { byCreation, toPage, type PageCursor } from '../pagination.ts';
import { API_KEY_PATTERN, generateApiKey, hashApiKey, keyPrefix } from './api-keys.ts';
import type { Permission } from './permissions.ts';
// Verifying a key is the caller's (the kernel builds the verifier): re-exported for users' own tests and files.
export { makeKeyVerifier } from '../platform/caller.ts';
import { MAX_ACTIVE_KEYS } from './contract.ts';
import type { ApiKeyRecord, CreditChange, NewApiKey, UserRecord, UserStore } from './store.ts';

/** The verbs on users and API keys: the operator's (the CLI) and a person's own keys (GET/POST/DELETE /keys). */
export interface UserDeps {
  users: UserStore;
  clock: Clock;
  newId: IdFactory;
  /** deriveKey(master, 'api-key-hash') */
  apiKeyHashKey: Buffer;
}

export interface UserView {
  id: string;
  name: string | null;
  credits: number;
  permissions: string[];
  created_at: string;
}

export interface ApiKeyView {
  id: string;
  user_id: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
}

const view = (u: UserRecord): UserView => ({
  id: u.id,
  name: u.name,
  credits: u.credits,
  permissions: u.permissions,
  created_at: isoTime(u.createdAt),
});

/** A fresh API key and the row the store keeps of it (its keyed hash, never the key). */
export function issueKey(deps: Pick<UserDeps, 'newId' | 'clock' | 'apiKeyHashKey'>): { row: NewApiKey; apiKey: string } {
  const apiKey = generateApiKey();
  const row = { id: deps.newId('key'), hash: hashApiKey(deps.apiKeyHashKey, apiKey), prefix: keyPrefix(apiKey), createdAt: deps.clock.now() };
  return { row, apiKey };
}

export async function createUser(
  deps: UserDeps,
  input: { name?: string; credits: number; permissions: Permission[] },
): Promise<{ user: UserView; apiKey: string }> {
  const { row, apiKey } = issueKey(deps);
  const user: UserRecord = { id: deps.newId('usr'), name: input.name ?? null, credits: input.credits, permissions: [...input.permissions], createdAt: row.createdAt };
  await deps.users.create(user, row);
  return { user: view(user), apiKey };
}

/** Issues another key; null when there is no such user. */
export async function createKey(deps: UserDeps, userId: string): Promise<{ id: string; apiKey: string } | null> {
  const { row, apiKey } = issueKey(deps);
  return (await deps.users.addKey(userId, row)) ? { id: row.id, apiKey } : null;
}

export async function getUser(deps: Pick<UserDeps, 'users'>, id: string): Promise<UserView | null> {
  const user = await deps.users.get(id);
  return user ? view(user) : null;
}

export async function listUsers(deps: Pick<UserDeps, 'users'>): Promise<UserView[]> {
  return (await deps.users.list()).map(view);
}

export async function listKeys(deps: Pick<UserDeps, 'users'>, userId: string): Promise<ApiKeyView[]> {
  return (await deps.users.listKeys(userId)).map((k) => ({
    id: k.id,
    user_id: k.userId,
    prefix: k.prefix,
    created_at: isoTime(k.createdAt),
    revoked_at: k.revokedAt === null ? null : isoTime(k.revokedAt),
  }));
}

/** A key as its owner sees it through the API; `current` marks the key the request came with. */
export interface OwnKeyView {
  id: string;
  prefix: string;
  created_at: string;
  revoked_at: string | null;
  current: boolean;
}

const ownView = (k: ApiKeyRecord, currentKeyId: string | undefined): OwnKeyView => ({
  id: k.id,
  prefix: k.prefix,
  created_at: isoTime(k.createdAt),
  revoked_at: k.revokedAt === null ? null : isoTime(k.revokedAt),
  current: k.id === currentKeyId,
});

/** A page of the caller's own keys, newest first (revoked ones included, with their time). */
export async function pageOwnKeys(
  deps: Pick<UserDeps, 'users'>,
  userId: string,
  page: { limit: number; cursor: PageCursor | null; currentKeyId?: string },
): Promise<{ keys: OwnKeyView[]; token?: string }> {
  const rows = await deps.users.pageKeys(userId, page.limit + 1, page.cursor);
  const { items, token } = toPage(rows, page.limit, byCreation);
  return { keys: items.map((k) => ownView(k, page.currentKeyId)), ...(token ? { token } : {}) };
}

/** A new key for the caller, shown this once; refused (409) at MAX_ACTIVE_KEYS active keys. */
export async function createOwnKey(deps: UserDeps, userId: string): Promise<{ id: string; api_key: string; prefix: string; created_at: string }> {
  const { row, apiKey } = issueKey(deps);
  const added = await deps.users.addKeyWithin(userId, row, MAX_ACTIVE_KEYS);
  if (added === 'at-limit') {
    throw new ApiError('ConflictError', `You have ${MAX_ACTIVE_KEYS} active API keys, the most one account may hold: revoke one (DELETE /keys/{id}) before creating another`);
  }
  // The caller was authenticated a moment ago; a user deleted since is not one to create keys for.
  if (added === 'not-found') throw notFound('User');
  return { id: row.id, api_key: apiKey, prefix: row.prefix, created_at: isoTime(row.createdAt) };
}

/**
 * Revokes one of the caller's keys; another user's key, or none, is 404. Revoking a revoked
 * key answers it unchanged. The key the request came with may be revoked: the answer says so
 * (`current`), and its next request is refused.
 */
export async function revokeOwnKey(deps: UserDeps, userId: string, keyId: string, currentKeyId: string | undefined): Promise<OwnKeyView> {
  await deps.users.revokeKey({ id: keyId, userId }, deps.clock.now());
  const key = await deps.users.getKey(userId, keyId);
  if (!key) throw notFound('API key');
  return ownView(key, currentKeyId);
}

/** Revokes by key id, or by the API key itself. Returns false when no active key matched. */
export async function revokeKey(deps: UserDeps, idOrKey: string): Promise<boolean> {
  const by = API_KEY_PATTERN.test(idOrKey) ? { hash: hashApiKey(deps.apiKeyHashKey, idOrKey) } : { id: idOrKey };
  return deps.users.revokeKey(by, deps.clock.now());
}

/**
 * Adds credits (a negative amount takes some away). Refused, with nothing changed, when the
 * balance would drop below zero: `users credits set` is the tool for corrections.
 */
export function addCredits(deps: Pick<UserDeps, 'users'>, userId: string, amount: number): Promise<CreditChange> {
  return deps.users.addCredits(userId, amount);
}

export function setCredits(deps: Pick<UserDeps, 'users'>, userId: string, credits: number): Promise<CreditChange> {
  return deps.users.setCredits(userId, credits);
}

