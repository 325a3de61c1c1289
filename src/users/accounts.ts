import type { Clock, IdFactory } from '../clock.ts';
import { isoTime } from '../clock.ts';
import { API_KEY_PATTERN, generateApiKey, hashApiKey, keyPrefix } from './api-keys.ts';
import type { Permission } from './permissions.ts';
import type { AuthUser } from '../platform/caller.ts';
import type { CreditChange, NewApiKey, UserRecord, UserStore } from './store.ts';

/** The operator verbs on users and API keys (the CLI calls them; the HTTP layer only verifies keys). */
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

/** Verified keys remembered per process; past this many, the memory starts over. */
const REMEMBERED_KEYS = 10_000;

/**
 * The authentication hot path. A key seen before is answered from memory while the store's
 * `keysVersion` stays the same: any commit to the database by another connection or
 * process (a revocation from the CLI included) or any key change through this one moves it,
 * and then every remembered key is checked again. So a revoked key still stops working on
 * the next request in every process. A new key costs one HMAC and one indexed select.
 * Only keys that verified are remembered: a guessed key is checked every time.
 * The caller carries the id of the key that matched (rate limits are per key, not per user).
 */
export function makeKeyVerifier(deps: Pick<UserDeps, 'users' | 'apiKeyHashKey'>): (apiKey: string) => Promise<AuthUser | null> {
  const remembered = new Map<string, AuthUser>();
  let version = -1;
  return async (apiKey) => {
    // Read before the lookup: a change committed after this read moves the next one.
    const current = await deps.users.keysVersion();
    if (current !== version) {
      remembered.clear();
      version = current;
    }
    const known = remembered.get(apiKey);
    if (known) return known;
    const owner = await deps.users.ownerOfKey(hashApiKey(deps.apiKeyHashKey, apiKey));
    if (!owner) return null;
    const user: AuthUser = Object.freeze({ id: owner.userId, name: owner.name, permissions: Object.freeze([...owner.permissions]), keyId: owner.keyId });
    if (remembered.size >= REMEMBERED_KEYS) remembered.clear();
    remembered.set(apiKey, user);
    return user;
  };
}
