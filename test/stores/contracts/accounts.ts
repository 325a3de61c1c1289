import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import type { NewSession } from '../../../src/accounts/store.ts';
import { seedUser, withDatabase } from '../seed.ts';

const session = (userId: string, id: string, createdAt: number, over: Partial<NewSession> = {}): NewSession => ({
  id, userId, tokenHash: `th_${id}`, createdAt, expiresAt: createdAt + 10_000, userAgent: 'ua', address: '192.0.2.1', ...over,
});

export function contract(dialect: Dialect): void {
  it('keeps one account per user and per email; an invited account has no password until one is set', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const a = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      expect(await stores.accounts.createAccount({ userId: a, email: 'ann@x.org', passwordHash: null, createdAt: 1 })).toBe(true);
      expect(await stores.accounts.createAccount({ userId: b, email: 'ann@x.org', passwordHash: 'h', createdAt: 1 })).toBe(false);
      expect(await stores.accounts.createAccount({ userId: a, email: 'other@x.org', passwordHash: 'h', createdAt: 1 })).toBe(false);
      expect(await stores.accounts.createAccount({ userId: 'usr_none', email: 'z@x.org', passwordHash: 'h', createdAt: 1 })).toBe(false);
      expect(await stores.accounts.byEmail('ann@x.org')).toEqual({ userId: a, email: 'ann@x.org', name: 'usr_a', passwordHash: null, createdAt: 1 });
      expect(await stores.accounts.setPassword(a, 'h2', 5)).toBe(true);
      expect((await stores.accounts.byUser(a))?.passwordHash).toBe('h2');
      expect(await stores.accounts.byEmail('nobody@x.org')).toBeUndefined();
    });
  });

  it('finds a live session by its token hash; a revoked one is gone, and revoking is per owner when asked', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const a = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      await stores.accounts.createAccount({ userId: a, email: 'a@x.org', passwordHash: 'h', createdAt: 1 });
      await stores.accounts.createSession(session(a, 'ses_1', 100));
      await stores.accounts.createSession(session(a, 'ses_2', 200));
      expect(await stores.accounts.sessionByTokenHash('th_ses_1')).toMatchObject({ id: 'ses_1', userId: a, email: 'a@x.org', lastSeenAt: 100, expiresAt: 10_100 });
      expect((await stores.accounts.listSessions(a, 150)).map((s) => s.id)).toEqual(['ses_2', 'ses_1']);
      await stores.accounts.touchSession('ses_1', 500, 400);
      await stores.accounts.touchSession('ses_1', 550, 400); // touched after 400 already: no move
      expect((await stores.accounts.sessionByTokenHash('th_ses_1'))?.lastSeenAt).toBe(500);
      expect(await stores.accounts.ownerOfSid('ses_1', 600, 0)).toEqual({ userId: a, name: 'usr_a', permissions: [] });
      expect(await stores.accounts.ownerOfSid('ses_1', 600, 500)).toBeUndefined(); // idle since 500
      expect(await stores.accounts.ownerOfSid('ses_1', 20_000, 0)).toBeUndefined(); // expired
      expect(await stores.accounts.revokeSession('ses_1', 700, b)).toBe(false);
      const before = await stores.accounts.version();
      expect(await stores.accounts.revokeSession('ses_1', 700, a)).toBe(true);
      expect(await stores.accounts.version()).not.toBe(before);
      expect(await stores.accounts.revokeSession('ses_1', 800)).toBe(false);
      expect(await stores.accounts.sessionByTokenHash('th_ses_1')).toBeUndefined();
      expect(await stores.accounts.ownerOfSid('ses_1', 800, 0)).toBeUndefined();
      expect(await stores.accounts.revokeOtherSessions(a, null, 900)).toBe(1);
      expect(await stores.accounts.listSessions(a, 900)).toEqual([]);
    });
  });

  it('answers an API key id as a sid while the key is active', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const a = await seedUser(stores, 'usr_a');
      expect(await stores.accounts.ownerOfSid(`key_${a}`, 0, 0)).toMatchObject({ userId: a });
      await stores.users.revokeKey({ id: `key_${a}` }, 5);
      expect(await stores.accounts.ownerOfSid(`key_${a}`, 0, 0)).toBeUndefined();
    });
  });

  it('uses a one-time token once, and not after it expired', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const a = await seedUser(stores, 'usr_a');
      await stores.accounts.createAccountToken({ id: 'atk_1', userId: a, kind: 'invite', tokenHash: 'h1', createdAt: 0, expiresAt: 1000 });
      await stores.accounts.createAccountToken({ id: 'atk_2', userId: a, kind: 'reset', tokenHash: 'h2', createdAt: 0, expiresAt: 1000 });
      expect(await stores.accounts.useAccountToken('h1', 10)).toEqual({ userId: a, kind: 'invite' });
      expect(await stores.accounts.useAccountToken('h1', 20)).toBeUndefined();
      expect(await stores.accounts.useAccountToken('h2', 1000)).toBeUndefined();
      expect(await stores.accounts.useAccountToken('nope', 10)).toBeUndefined();
    });
  });

  it('adds a signing key only when none newer exists, and drops old ones', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const key = (kid: string, createdAt: number) => ({ kid, alg: 'ES256', publicJwk: '{}', privateJwk: 'sealed', createdAt });
      expect(await stores.accounts.addSigningKeyUnlessNewer(key('k1', 100), 0)).toBe(true);
      expect(await stores.accounts.addSigningKeyUnlessNewer(key('k2', 150), 50)).toBe(false); // k1 (100) is newer than 50
      expect(await stores.accounts.addSigningKeyUnlessNewer(key('k3', 300), 200)).toBe(true);
      expect((await stores.accounts.signingKeys()).map((k) => k.kid)).toEqual(['k3', 'k1']);
      await stores.accounts.dropSigningKeysBefore(300);
      expect((await stores.accounts.signingKeys()).map((k) => k.kid)).toEqual(['k3']);
    });
  });

  it('counts failures per bucket in a window that starts over when it ended', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      expect(await stores.accounts.failures('acct:x', 0, 100)).toEqual({ failures: 0, windowStartedAt: 0 });
      expect(await stores.accounts.addFailure('acct:x', 10, 100)).toEqual({ failures: 1, windowStartedAt: 10 });
      expect(await stores.accounts.addFailure('acct:x', 50, 100)).toEqual({ failures: 2, windowStartedAt: 10 });
      expect(await stores.accounts.failures('acct:x', 60, 100)).toEqual({ failures: 2, windowStartedAt: 10 });
      expect(await stores.accounts.failures('acct:x', 110, 100)).toEqual({ failures: 0, windowStartedAt: 110 });
      expect(await stores.accounts.addFailure('acct:x', 110, 100)).toEqual({ failures: 1, windowStartedAt: 110 });
      await stores.accounts.clearFailures('acct:x');
      expect(await stores.accounts.failures('acct:x', 120, 100)).toEqual({ failures: 0, windowStartedAt: 120 });
    });
  });

  it('moves version when another connection revokes a session (a commit on SQLite, a notice on PostgreSQL)', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        // Seeded with plain SQL: no store announced anything, so only the revocation below can move the version.
        const a = 'usr_a';
        await db.rows('INSERT INTO users (id, name, credits, permissions, created_at) VALUES ($1, $2, 0, $3, 0)', [a, a, '[]']);
        await db.rows('INSERT INTO accounts (user_id, email, created_at) VALUES ($1, $2, 1)', [a, 'a@x.org']);
        await db.rows(
          'INSERT INTO studio_sessions (id, user_id, token_hash, created_at, last_seen_at, expires_at) VALUES ($1, $2, $3, 100, 100, 10100)',
          ['ses_1', a, 'th_ses_1'],
        );
        expect((await other.stores.accounts.ownerOfSid('ses_1', 200, 0))?.userId).toBe(a);
        const before = await other.stores.accounts.version();
        expect(await db.stores.accounts.revokeSession('ses_1', 300)).toBe(true);
        await expect.poll(() => other.stores.accounts.version(), { timeout: 20_000, interval: 5 }).not.toBe(before);
        expect(await other.stores.accounts.ownerOfSid('ses_1', 400, 0)).toBeUndefined();
      } finally {
        await other.close();
      }
    });
  });

  it('from two connections at once: a one-time token is used once, one signing key is added, every failure is counted', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const a = await seedUser(db.stores, 'usr_a');
        const pick = (i: number) => (i % 2 ? db : other).stores.accounts;
        for (let round = 0; round < 5; round++) {
          await db.stores.accounts.createAccountToken({ id: `atk_${round}`, userId: a, kind: 'reset', tokenHash: `h${round}`, createdAt: 0, expiresAt: 1000 });
          const uses = await Promise.all(Array.from({ length: 6 }, (_, i) => pick(i).useAccountToken(`h${round}`, 10)));
          expect(uses.filter(Boolean)).toHaveLength(1);

          const at = 1000 * (round + 1);
          const added = await Promise.all(
            Array.from({ length: 6 }, (_, i) => pick(i).addSigningKeyUnlessNewer({ kid: `k${round}_${i}`, alg: 'ES256', publicJwk: '{}', privateJwk: 'sealed', createdAt: at + i }, at - 1)),
          );
          expect(added.filter(Boolean)).toHaveLength(1);

          const counts = await Promise.all(Array.from({ length: 10 }, (_, i) => pick(i).addFailure(`acct:${round}`, 10 + i, 100_000)));
          expect(counts.map((c) => c.failures).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
        }
        expect(await db.stores.accounts.signingKeys()).toHaveLength(5);
      } finally {
        await other.close();
      }
    });
  });
}
