import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Store } from '../db/client.ts';
import { apiKeys, users } from '../db/schema.ts';
import type { Clock, IdFactory } from '../clock.ts';
import { isoTime } from '../clock.ts';
import { generateApiKey, hashApiKey, keyPrefix } from './api-keys.ts';
import type { Permission } from './permissions.ts';
import type { AuthUser } from './auth-user.ts';

export interface UserDeps {
  store: Store;
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

const view = (u: typeof users.$inferSelect): UserView => ({
  id: u.id,
  name: u.name,
  credits: u.credits,
  permissions: JSON.parse(u.permissions) as string[],
  created_at: isoTime(u.createdAt),
});

export function createUser(
  deps: UserDeps,
  input: { name?: string; credits: number; permissions: Permission[] },
): { user: UserView; apiKey: string } {
  const now = deps.clock.now();
  const id = deps.newId('usr');
  const apiKey = generateApiKey();
  deps.store.sqlite.transaction(() => {
    deps.store.db
      .insert(users)
      .values({ id, name: input.name ?? null, credits: input.credits, permissions: JSON.stringify(input.permissions), createdAt: now })
      .run();
    insertKey(deps, id, apiKey, now);
  })();
  return { user: getUser(deps, id)!, apiKey };
}

function insertKey(deps: UserDeps, userId: string, apiKey: string, now: number): string {
  const id = deps.newId('key');
  deps.store.db
    .insert(apiKeys)
    .values({ id, userId, hash: hashApiKey(deps.apiKeyHashKey, apiKey), prefix: keyPrefix(apiKey), createdAt: now })
    .run();
  return id;
}

export function createKey(deps: UserDeps, userId: string): { id: string; apiKey: string } | null {
  if (!getUser(deps, userId)) return null;
  const apiKey = generateApiKey();
  return { id: insertKey(deps, userId, apiKey, deps.clock.now()), apiKey };
}

export function getUser(deps: Pick<UserDeps, 'store'>, id: string): UserView | null {
  const row = deps.store.db.select().from(users).where(eq(users.id, id)).get();
  return row ? view(row) : null;
}

export function listUsers(deps: Pick<UserDeps, 'store'>): UserView[] {
  return deps.store.db.select().from(users).orderBy(desc(users.createdAt)).all().map(view);
}

export function addCredits(deps: Pick<UserDeps, 'store'>, userId: string, amount: number): UserView | null {
  const res = deps.store.db
    .update(users)
    .set({ credits: sql`${users.credits} + ${amount}` })
    .where(eq(users.id, userId))
    .run();
  return res.changes === 0 ? null : getUser(deps, userId);
}

export function listKeys(deps: Pick<UserDeps, 'store'>, userId: string) {
  return deps.store.db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.userId, userId))
    .orderBy(desc(apiKeys.createdAt))
    .all()
    .map((k) => ({
      id: k.id,
      user_id: k.userId,
      prefix: k.prefix,
      created_at: isoTime(k.createdAt),
      revoked_at: k.revokedAt === null ? null : isoTime(k.revokedAt),
    }));
}

/** Revokes by key id, or by the API key itself. Returns false when no active key matched. */
export function revokeKey(deps: UserDeps, idOrKey: string): boolean {
  const match = idOrKey.startsWith('mimic_')
    ? eq(apiKeys.hash, hashApiKey(deps.apiKeyHashKey, idOrKey))
    : eq(apiKeys.id, idOrKey);
  const res = deps.store.db
    .update(apiKeys)
    .set({ revokedAt: deps.clock.now() })
    .where(and(match, isNull(apiKeys.revokedAt)))
    .run();
  return res.changes > 0;
}

/** The authentication hot path: one HMAC and one indexed lookup per candidate. */
export function makeKeyVerifier(deps: UserDeps): (apiKey: string) => AuthUser | null {
  const stmt = deps.store.sqlite.prepare<[string], { id: string; name: string | null; permissions: string }>(
    `SELECT u.id, u.name, u.permissions FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.hash = ? AND k.revoked_at IS NULL`,
  );
  return (apiKey) => {
    const row = stmt.get(hashApiKey(deps.apiKeyHashKey, apiKey));
    return row ? { id: row.id, name: row.name, permissions: JSON.parse(row.permissions) as string[] } : null;
  };
}
