import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import { seedUser, withDatabase } from '../seed.ts';

export function contract(dialect: Dialect): void {
  it('creates a signing secret once per user, even from two connections', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      const u = await seedUser(a.stores, 'usr_a');
      expect(await a.stores.webhookSecrets.get(u)).toBeUndefined();
      const first = await a.stores.webhookSecrets.createIfAbsent(u, 'sealed-1', 1000);
      expect(first).toEqual({ userId: u, current: 'sealed-1', previous: null, previousExpiresAt: null, createdAt: 1000, rotatedAt: null });
      expect(await b.stores.webhookSecrets.createIfAbsent(u, 'sealed-2', 2000)).toEqual(first);
      expect(await b.stores.webhookSecrets.get(u)).toEqual(first);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('rotates: the current secret becomes the previous one until the given time', async () => {
    await withDatabase(dialect, async (db) => {
    const u = await seedUser(db.stores, 'usr_a');
    await db.stores.webhookSecrets.createIfAbsent(u, 'sealed-1', 1000);
    const rotated = await db.stores.webhookSecrets.rotate(u, 'unused-seed', 'sealed-2', 5000, 9000);
    expect(rotated).toEqual({ userId: u, current: 'sealed-2', previous: 'sealed-1', previousExpiresAt: 9000, createdAt: 1000, rotatedAt: 5000 });
    const again = await db.stores.webhookSecrets.rotate(u, 'unused-seed', 'sealed-3', 6000, 10_000);
    expect(again).toMatchObject({ current: 'sealed-3', previous: 'sealed-2', previousExpiresAt: 10_000, rotatedAt: 6000 });
    expect(await db.stores.webhookSecrets.get(u)).toEqual(again);
    });
  });

  it('rotating a user without a secret seeds one first, which then signs as the previous', async () => {
    await withDatabase(dialect, async (db) => {
    const u = await seedUser(db.stores, 'usr_a');
    expect(await db.stores.webhookSecrets.rotate(u, 'seed', 'fresh', 5000, 9000)).toEqual({
      userId: u, current: 'fresh', previous: 'seed', previousExpiresAt: 9000, createdAt: 5000, rotatedAt: 5000,
    });
    });
  });
}
