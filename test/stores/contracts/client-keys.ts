import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import type { NewClientKey } from '../../../src/agents/client-keys/store.ts';
import { seedUser, withDatabase } from '../seed.ts';
import { pastKeysRecheck } from './users.ts';

const agent = (userId: string, id: string) => ({ id, userId, body: '{}', secretId: null, toolIds: [], voice: null, version: 1, createdAt: 1000, modifiedAt: 1000 });
const clientKey = (userId: string, agentId: string, id: string, over: Partial<NewClientKey> = {}): NewClientKey => ({
  id, userId, agentId, hash: `hash_${id}`, prefix: 'mimic_ck_abcde', name: null, origins: ['https://shop.example'], createdAt: 2000, ...over,
});

/** Browsers' client keys of agents: what every dialect's ClientKeyStore must do. */
export function contract(dialect: Dialect): void {
  it("creates a key only for the user's own agent and under the limit, lists active ones newest first, never the hash", async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      await stores.agents.create(agent(u, 'agt_1'));
      expect(await stores.clientKeys.create(clientKey(b, 'agt_1', 'ck_b'), 5)).toBe('no_agent');
      expect(await stores.clientKeys.create(clientKey(u, 'agt_none', 'ck_x'), 5)).toBe('no_agent');
      expect(await stores.clientKeys.create(clientKey(u, 'agt_1', 'ck_1', { name: 'shop' }), 2)).toBe('created');
      expect(await stores.clientKeys.create(clientKey(u, 'agt_1', 'ck_2', { createdAt: 3000 }), 2)).toBe('created');
      expect(await stores.clientKeys.create(clientKey(u, 'agt_1', 'ck_3'), 2)).toBe('full');
      const list = await stores.clientKeys.list(u, 'agt_1');
      expect(list.map((k) => k.id)).toEqual(['ck_2', 'ck_1']);
      expect(list[1]).toEqual({ id: 'ck_1', userId: u, agentId: 'agt_1', prefix: 'mimic_ck_abcde', name: 'shop', origins: ['https://shop.example'], createdAt: 2000 });
      expect(await stores.clientKeys.list(b, 'agt_1')).toEqual([]);
      // A revoked key frees its place.
      expect(await stores.clientKeys.revoke(u, 'agt_1', 'ck_1', 4000)).toBe(true);
      expect(await stores.clientKeys.create(clientKey(u, 'agt_1', 'ck_3'), 2)).toBe('created');
    });
  });

  it('answers the owner of an active key with the agent, origins and the owner\'s permissions; revoked, changed and deleted with the agent', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      await stores.agents.create(agent(u, 'agt_1'));
      await stores.clientKeys.create(clientKey(u, 'agt_1', 'ck_1'), 5);
      expect(await stores.clientKeys.ownerOfClientKey('hash_ck_1')).toEqual({
        clientKeyId: 'ck_1', agentId: 'agt_1', userId: u, name: u, permissions: [], origins: ['https://shop.example'],
      });
      expect(await stores.clientKeys.update(b, 'agt_1', 'ck_1', { origins: ['https://evil.example'] })).toBe(false);
      expect(await stores.clientKeys.update(u, 'agt_1', 'ck_1', { origins: ['https://other.example'], name: 'renamed' })).toBe(true);
      expect((await stores.clientKeys.ownerOfClientKey('hash_ck_1'))?.origins).toEqual(['https://other.example']);
      expect((await stores.clientKeys.list(u, 'agt_1'))[0]?.name).toBe('renamed');
      expect(await stores.clientKeys.revoke(b, 'agt_1', 'ck_1', 5000)).toBe(false);
      expect(await stores.clientKeys.revoke(u, 'agt_1', 'ck_1', 5000)).toBe(true);
      expect(await stores.clientKeys.revoke(u, 'agt_1', 'ck_1', 5000)).toBe(false);
      expect(await stores.clientKeys.ownerOfClientKey('hash_ck_1')).toBeUndefined();
      expect(await stores.clientKeys.update(u, 'agt_1', 'ck_1', { name: 'x' })).toBe(false);

      await stores.clientKeys.create(clientKey(u, 'agt_1', 'ck_2'), 5);
      expect(await stores.agents.delete(u, 'agt_1')).toBeDefined();
      expect(await stores.clientKeys.ownerOfClientKey('hash_ck_2')).toBeUndefined();
    });
  });

  it('moves clientKeysVersion at once on any write of its connection (an agent deleted too), and on another connection\'s commit from the recheck on', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const u = await seedUser(db.stores, 'usr_a');
        await db.stores.agents.create(agent(u, 'agt_1'));
        await db.stores.agents.create(agent(u, 'agt_2'));
        const v0 = await db.stores.clientKeys.clientKeysVersion();
        expect(await db.stores.clientKeys.clientKeysVersion()).toBe(v0);
        await db.stores.clientKeys.create(clientKey(u, 'agt_1', 'ck_1'), 5);
        const v1 = await db.stores.clientKeys.clientKeysVersion();
        expect(v1).not.toBe(v0);
        await db.stores.agents.delete(u, 'agt_2');
        const v2 = await db.stores.clientKeys.clientKeysVersion();
        expect(v2).not.toBe(v1);
        expect(await other.stores.clientKeys.revoke(u, 'agt_1', 'ck_1', 9000)).toBe(true);
        await pastKeysRecheck();
        const v3 = await db.stores.clientKeys.clientKeysVersion();
        expect(v3).not.toBe(v2);
        expect(await db.stores.clientKeys.clientKeysVersion()).toBe(v3);
      } finally {
        await other.close();
      }
    });
  });
}
