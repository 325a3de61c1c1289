import { expect, it } from 'vitest';
import type { OAuthConnectionRow } from '../../../src/db/schema.ts';
import type { Dialect } from '../dialects.ts';
import { audit, seedUser, withDatabase } from '../seed.ts';

const attempt = (userId: string, id: string, over: Partial<OAuthConnectionRow> = {}): OAuthConnectionRow => ({
  id, userId, stateHash: `hash-${id}`, status: 'pending', provider: 'calendar', issuer: 'https://issuer.test', metadata: '{"issuer":"https://issuer.test"}',
  authorizationUrl: 'https://issuer.test/authorize', tokenUrl: 'https://issuer.test/token', clientId: 'client', scopes: '["openid"]',
  authMethod: 'client_secret_post', sealed: '[{"field":"code_verifier"}]', targetSecretId: null, resultSecretId: null, errorCode: null,
  createdAt: 1000, expiresAt: 1000 + 600_000, finishedAt: null, ...over,
});

export function contract(dialect: Dialect): void {
  it('creates an attempt and reads it back scoped to its user', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      await seedUser(stores, 'usr_b');
      const row = attempt(u, 'oac_1');
      await stores.oauthConnections.create(row);
      expect(await stores.oauthConnections.get(u, 'oac_1')).toEqual(row);
      expect(await stores.oauthConnections.get('usr_b', 'oac_1')).toBeUndefined();
      expect(await stores.oauthConnections.byState('hash-oac_1')).toEqual(row);
      expect(await stores.oauthConnections.byState('hash-other')).toBeUndefined();
    });
  });

  it('claims a pending attempt once, only before it expires, from any connection', async () => {
    await withDatabase(dialect, async (db) => {
      const u = await seedUser(db.stores, 'usr_a');
      await db.stores.oauthConnections.create(attempt(u, 'oac_1'));
      await db.stores.oauthConnections.create(attempt(u, 'oac_2'));
      const other = await db.reopen();
      try {
        const claims = await Promise.all([db.stores.oauthConnections.claim('hash-oac_1', 2000), other.stores.oauthConnections.claim('hash-oac_1', 2000)]);
        expect(claims.filter(Boolean)).toHaveLength(1);
        expect(claims.find(Boolean)).toMatchObject({ id: 'oac_1', status: 'exchanging' });
        expect(await db.stores.oauthConnections.claim('hash-oac_1', 2000)).toBeUndefined();
        // At its expiry it is no longer claimable.
        expect(await other.stores.oauthConnections.claim('hash-oac_2', 1000 + 600_000)).toBeUndefined();
        expect((await db.stores.oauthConnections.get(u, 'oac_2'))!.status).toBe('pending');
      } finally {
        await other.close();
      }
    });
  });

  it('ends an attempt once: connected only from exchanging, failed from pending or exchanging, sealed values emptied, audit row with it', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const c = stores.oauthConnections;
      await c.create(attempt(u, 'oac_1'));
      await c.create(attempt(u, 'oac_2'));
      expect(await c.finishConnected('oac_1', 'sec_1', 3000, audit(u, 3000, { action: 'secret.connect' }))).toBe(false);
      await c.claim('hash-oac_1', 2000);
      expect(await c.finishConnected('oac_1', 'sec_1', 3000, audit(u, 3000, { action: 'secret.connect' }))).toBe(true);
      expect(await c.get(u, 'oac_1')).toMatchObject({ status: 'connected', resultSecretId: 'sec_1', finishedAt: 3000, sealed: '[]' });
      expect(await c.finishFailed('oac_1', 'failed', 'provider_error', 4000, audit(u, 4000, { action: 'secret.connect', outcome: 'failure' }))).toBe(false);

      expect(await c.finishFailed('oac_2', 'expired', 'expired', 5000, audit(u, 5000, { action: 'secret.connect', outcome: 'failure' }))).toBe(true);
      expect(await c.get(u, 'oac_2')).toMatchObject({ status: 'expired', errorCode: 'expired', finishedAt: 5000, sealed: '[]', resultSecretId: null });
      expect(await c.finishFailed('oac_2', 'denied', 'denied', 6000, audit(u, 6000, { action: 'secret.connect', outcome: 'failure' }))).toBe(false);
      const rows = await stores.audit.list({ userId: u }, 10, null);
      expect(rows.map((r) => [r.action, r.outcome, r.at])).toEqual([['secret.connect', 'failure', 5000], ['secret.connect', 'success', 3000]]);
    });
  });

  it('sweeps: ends expired pending attempts and stuck exchanges (sealed values emptied), deletes old ended ones, leaves the rest', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const c = stores.oauthConnections;
      const expires = 1000 + 600_000;
      await c.create(attempt(u, 'oac_live', { expiresAt: 10_000_000 }));
      await c.create(attempt(u, 'oac_lapsed'));
      await c.create(attempt(u, 'oac_stuck'));
      await c.create(attempt(u, 'oac_busy', { expiresAt: expires + 5000 }));
      await c.create(attempt(u, 'oac_old', { status: 'denied', sealed: '[]', errorCode: 'denied', finishedAt: 500 }));
      await c.claim('hash-oac_stuck', 2000);
      await c.claim('hash-oac_busy', 2000);
      const now = expires + 3600_000;
      expect(await c.sweep(now, 3600_000, 1000)).toEqual({ ended: 2, deleted: 1 });
      expect(await c.get(u, 'oac_lapsed')).toMatchObject({ status: 'expired', errorCode: 'expired', finishedAt: now, sealed: '[]' });
      expect(await c.get(u, 'oac_stuck')).toMatchObject({ status: 'failed', errorCode: 'interrupted', finishedAt: now, sealed: '[]' });
      expect(await c.get(u, 'oac_busy')).toMatchObject({ status: 'exchanging', finishedAt: null });
      expect(await c.get(u, 'oac_live')).toMatchObject({ status: 'pending', sealed: '[{"field":"code_verifier"}]' });
      expect(await c.get(u, 'oac_old')).toBeUndefined();
      expect(await c.sweep(now, 3600_000, 1000)).toEqual({ ended: 0, deleted: 0 });
    });
  });
}
