import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Dialect, OpenStores } from '../dialects.ts';
import { KEYS_RECHECK_MS, type NewApiKey, type NewUser } from '../../../src/users/store.ts';
import { hashApiKey, makeKeyVerifier } from '../../../src/platform/caller.ts';

/** Waits until more than KEYS_RECHECK_MS has passed: from then on a commit made before by another connection counts (SQLite). */
export async function pastKeysRecheck(): Promise<void> {
  const from = performance.now();
  while (performance.now() - from <= KEYS_RECHECK_MS) await new Promise((r) => setTimeout(r, 1));
}

/** Users, API keys and credits: what every dialect's UserStore must do. */
export function contract(dialect: Dialect): void {
  let db: OpenStores;
  let n = 0;
  beforeEach(async () => {
    db = await dialect.open();
  });
  afterEach(async () => {
    await db.close();
  });

  const user = (over: Partial<NewUser> = {}): NewUser => ({ id: `usr_${++n}`, name: null, credits: 10, permissions: [], createdAt: 1_700_000_000_000 + n, ...over });
  const key = (over: Partial<NewApiKey> = {}): NewApiKey => ({ id: `key_${++n}`, hash: `hash_${n}`, prefix: `mimic_${n}`, createdAt: 1_700_000_000_000 + n, ...over });

  it('creates a user with its first key, and reads it back', async () => {
    const u = user({ name: 'Ada', credits: 7, permissions: ['stitch'] });
    const k = key();
    await db.stores.users.create(u, k);
    expect(await db.stores.users.get(u.id)).toEqual(u);
    expect(await db.stores.users.get('usr_nope')).toBeUndefined();
    expect(await db.stores.users.listKeys(u.id)).toEqual([{ id: k.id, userId: u.id, prefix: k.prefix, createdAt: k.createdAt, revokedAt: null }]);
    expect(await db.stores.users.ownerOfKey(k.hash)).toEqual({ keyId: k.id, userId: u.id, name: 'Ada', permissions: ['stitch'] });
  });

  it('creates nothing when the first key cannot be stored (one transaction)', async () => {
    const first = key();
    await db.stores.users.create(user(), first);
    const u = user();
    await expect(db.stores.users.create(u, key({ hash: first.hash }))).rejects.toThrow();
    expect(await db.stores.users.get(u.id)).toBeUndefined();
  });

  it('lists users newest first', async () => {
    const older = user({ createdAt: 1000 });
    const newer = user({ createdAt: 2000 });
    await db.stores.users.create(older, key());
    await db.stores.users.create(newer, key());
    expect((await db.stores.users.list()).map((u) => u.id)).toEqual([newer.id, older.id]);
  });

  it('adds keys to existing users only, and lists them newest first', async () => {
    const u = user();
    const first = key({ createdAt: 1000 });
    await db.stores.users.create(u, first);
    const second = key({ createdAt: 2000 });
    expect(await db.stores.users.addKey(u.id, second)).toBe(true);
    expect(await db.stores.users.addKey('usr_nope', key())).toBe(false);
    expect((await db.stores.users.listKeys(u.id)).map((k) => k.id)).toEqual([second.id, first.id]);
    expect((await db.stores.users.ownerOfKey(second.hash))?.keyId).toBe(second.id);
    expect(await db.stores.users.ownerOfKey('hash_nope')).toBeUndefined();
  });

  it('revokes a key by id or by hash, once, and a revoked key no longer verifies', async () => {
    const u = user();
    const a = key();
    const b = key();
    await db.stores.users.create(u, a);
    await db.stores.users.addKey(u.id, b);
    expect(await db.stores.users.revokeKey({ id: a.id }, 5000)).toBe(true);
    expect(await db.stores.users.revokeKey({ id: a.id }, 6000)).toBe(false);
    expect(await db.stores.users.revokeKey({ hash: b.hash }, 7000)).toBe(true);
    expect(await db.stores.users.revokeKey({ hash: b.hash }, 8000)).toBe(false);
    expect(await db.stores.users.revokeKey({ id: 'key_nope' }, 8000)).toBe(false);
    expect(await db.stores.users.ownerOfKey(a.hash)).toBeUndefined();
    expect(await db.stores.users.ownerOfKey(b.hash)).toBeUndefined();
    expect((await db.stores.users.listKeys(u.id)).find((k) => k.id === a.id)?.revokedAt).toBe(5000);
  });

  it('revokes by {id, userId} only a key of that user', async () => {
    const a = user();
    const b = user();
    const ka = key();
    await db.stores.users.create(a, ka);
    await db.stores.users.create(b, key());
    expect(await db.stores.users.revokeKey({ id: ka.id, userId: b.id }, 5000)).toBe(false);
    expect(await db.stores.users.ownerOfKey(ka.hash)).toBeDefined();
    expect(await db.stores.users.getKey(b.id, ka.id)).toBeUndefined();
    expect(await db.stores.users.revokeKey({ id: ka.id, userId: a.id }, 6000)).toBe(true);
    expect(await db.stores.users.revokeKey({ id: ka.id, userId: a.id }, 7000)).toBe(false);
    expect(await db.stores.users.getKey(a.id, ka.id)).toEqual({ id: ka.id, userId: a.id, prefix: ka.prefix, createdAt: ka.createdAt, revokedAt: 6000 });
  });

  it('adds a key within a cap of active keys, revoked keys not counted', async () => {
    const u = user();
    const first = key();
    await db.stores.users.create(u, first);
    expect(await db.stores.users.addKeyWithin(u.id, key(), 2)).toBe('added');
    expect(await db.stores.users.addKeyWithin(u.id, key(), 2)).toBe('at-limit');
    expect(await db.stores.users.listKeys(u.id)).toHaveLength(2);
    await db.stores.users.revokeKey({ id: first.id }, 5000);
    const k = key();
    expect(await db.stores.users.addKeyWithin(u.id, k, 2)).toBe('added');
    expect((await db.stores.users.ownerOfKey(k.hash))?.keyId).toBe(k.id);
    expect(await db.stores.users.addKeyWithin('usr_nope', key(), 2)).toBe('not-found');
  });

  it('pages a user\'s keys newest first, ties broken by id', async () => {
    const u = user();
    const keys = [key({ createdAt: 1000 }), key({ createdAt: 2000, id: 'key_b' }), key({ createdAt: 2000, id: 'key_a' }), key({ createdAt: 3000 })];
    await db.stores.users.create(u, keys[0]!);
    for (const k of keys.slice(1)) await db.stores.users.addKey(u.id, k);
    await db.stores.users.create(user(), key({ createdAt: 2500 }));
    const first = await db.stores.users.pageKeys(u.id, 2, null);
    expect(first.map((k) => k.id)).toEqual([keys[3]!.id, 'key_b']);
    const rest = await db.stores.users.pageKeys(u.id, 5, { createdAt: 2000, id: 'key_b' });
    expect(rest.map((k) => k.id)).toEqual(['key_a', keys[0]!.id]);
  });

  it('adds and takes credits, never below zero', async () => {
    const u = user({ credits: 5 });
    await db.stores.users.create(u, key());
    expect(await db.stores.users.addCredits(u.id, 3)).toEqual({ status: 'ok', credits: 8 });
    expect(await db.stores.users.addCredits(u.id, -9)).toEqual({ status: 'insufficient', credits: 8 });
    expect((await db.stores.users.get(u.id))?.credits).toBe(8);
    expect(await db.stores.users.addCredits(u.id, -8)).toEqual({ status: 'ok', credits: 0 });
    expect(await db.stores.users.addCredits(u.id, -1)).toEqual({ status: 'insufficient', credits: 0 });
    expect(await db.stores.users.addCredits('usr_nope', 1)).toEqual({ status: 'not-found' });
  });

  it('sets a balance, never a negative one', async () => {
    const u = user({ credits: 5 });
    await db.stores.users.create(u, key());
    expect(await db.stores.users.setCredits(u.id, 42)).toEqual({ status: 'ok', credits: 42 });
    expect(await db.stores.users.setCredits('usr_nope', 1)).toEqual({ status: 'not-found' });
    await expect(db.stores.users.setCredits(u.id, -1)).rejects.toThrow(RangeError);
    await expect(db.stores.users.create(user({ credits: -1 }), key())).rejects.toThrow(RangeError);
    expect((await db.stores.users.get(u.id))?.credits).toBe(42);
  });

  it('moves keysVersion when another connection changes a key (a commit on SQLite, a notice on PostgreSQL), and at once on its own changes', async () => {
    const other = await db.reopen();
    try {
      const v0 = await db.stores.users.keysVersion();
      expect(await db.stores.users.keysVersion()).toBe(v0);
      // Another connection's change first: this store has announced nothing, so only that can move it.
      const u = user();
      const k = key();
      await other.stores.users.create(u, k);
      await expect.poll(() => db.stores.users.keysVersion(), { timeout: 20_000, interval: 5 }).not.toBe(v0);
      const v1 = await db.stores.users.keysVersion();
      await db.stores.users.revokeKey({ id: k.id }, 9000);
      expect(await db.stores.users.keysVersion()).not.toBe(v1);
      const v2 = await db.stores.users.keysVersion();
      await db.stores.users.revokeKey({ id: 'key_nope' }, 9000);
      expect(await db.stores.users.keysVersion()).not.toBe(v2);
    } finally {
      await other.close();
    }
  });

  it('a key revoked through one connection is refused by the other\'s key verifier, which remembered it, within a bounded time', async () => {
    const other = await db.reopen();
    try {
      const hashKey = Buffer.alloc(32, 7);
      const apiKey = `mimic_${'a'.repeat(43)}`;
      const u = user();
      await db.stores.users.create(u, key({ hash: hashApiKey(hashKey, apiKey) }));
      const verify = makeKeyVerifier({ users: other.stores.users, apiKeyHashKey: hashKey });
      expect((await verify(apiKey))?.id).toBe(u.id);
      expect((await verify(apiKey))?.id).toBe(u.id); // now answered from memory
      expect(await db.stores.users.revokeKey({ hash: hashApiKey(hashKey, apiKey) }, 9000)).toBe(true);
      await expect.poll(() => verify(apiKey), { timeout: 20_000, interval: 5 }).toBeNull();
    } finally {
      await other.close();
    }
  });

  it('keeps the cap of active keys when two connections add keys at once', async () => {
    const other = await db.reopen();
    try {
      const u = user();
      await db.stores.users.create(u, key());
      for (let round = 0; round < 5; round++) {
        const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? db : other).stores.users.addKeyWithin(u.id, key(), 4 + round)));
        expect(outcomes.filter((o) => o === 'added')).toHaveLength(round === 0 ? 3 : 1);
        expect((await db.stores.users.listKeys(u.id)).filter((k) => k.revokedAt === null)).toHaveLength(4 + round);
      }
    } finally {
      await other.close();
    }
  });

  it('charges and refunds from two connections at once add up exactly, never below zero', async () => {
    const other = await db.reopen();
    try {
      const u = user({ credits: 50 });
      await db.stores.users.create(u, key());
      let balance = 50;
      for (let round = 0; round < 5; round++) {
        const amounts = Array.from({ length: 20 }, (_, i) => (i % 4 === 3 ? 3 : -7));
        const changes = await Promise.all(amounts.map((amount, i) => (i % 2 ? db : other).stores.users.addCredits(u.id, amount)));
        expect(changes.every((c) => c.status === 'ok' || c.status === 'insufficient')).toBe(true);
        balance += amounts.filter((_, i) => changes[i]!.status === 'ok').reduce((a, b) => a + b, 0);
        expect(balance).toBeGreaterThanOrEqual(0);
        expect((await other.stores.users.get(u.id))!.credits).toBe(balance);
        expect(await db.stores.users.setCredits(u.id, 30)).toEqual({ status: 'ok', credits: 30 });
        balance = 30;
      }
    } finally {
      await other.close();
    }
  });

  it('two connections share users, keys and balances, and together never overdraw', async () => {
    const other = await db.reopen();
    try {
      const u = user({ credits: 3 });
      const k = key();
      await db.stores.users.create(u, k);
      expect((await other.stores.users.ownerOfKey(k.hash))?.userId).toBe(u.id);
      const takes = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => (i % 2 ? db : other).stores.users.addCredits(u.id, -1)));
      expect(takes.filter((t) => t.status === 'ok')).toHaveLength(3);
      expect(takes.filter((t) => t.status === 'insufficient')).toHaveLength(3);
      expect((await other.stores.users.get(u.id))?.credits).toBe(0);
      expect(await other.stores.users.revokeKey({ id: k.id }, 9000)).toBe(true);
      expect(await db.stores.users.ownerOfKey(k.hash)).toBeUndefined();
    } finally {
      await other.close();
    }
  });
}
