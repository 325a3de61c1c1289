import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import type { NewClientKey } from '../../../src/agents/client-keys/store.ts';
import { seedUser, withDatabase } from '../seed.ts';
import { hashApiKey, makeClientKeyVerifier } from '../../../src/platform/caller.ts';

const agent = (userId: string, id: string) => ({ id, userId, body: '{}', secretId: null, toolIds: [], voice: null, version: 1, createdAt: 1000, modifiedAt: 1000 });
const clientKey = (userId: string, agentId: string, id: string, over: Partial<NewClientKey> = {}): NewClientKey => ({
  id, userId, agentId, hash: `hash_${id}`, prefix: 'mimic_ck_abcde', name: null, origins: ['https://shop.example'], createdAt: 2000, ...over,
});

/** Asks `done` until it answers true, for at most 20 s (a change notice crosses processes asynchronously). */
async function until(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('the condition did not hold within 20 s');
    await new Promise((r) => setTimeout(r, 20));
  }
}

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

  it('moves clientKeysVersion at once on any write of its connection, an agent deleted too', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      await stores.agents.create(agent(u, 'agt_1'));
      await stores.agents.create(agent(u, 'agt_2'));
      const v0 = await stores.clientKeys.clientKeysVersion();
      await stores.clientKeys.create(clientKey(u, 'agt_1', 'ck_1'), 5);
      const v1 = await stores.clientKeys.clientKeysVersion();
      expect(v1).not.toBe(v0);
      await stores.agents.delete(u, 'agt_2');
      const v2 = await stores.clientKeys.clientKeysVersion();
      expect(v2).not.toBe(v1);
      await stores.clientKeys.revoke(u, 'agt_1', 'ck_1', 9000);
      expect(await stores.clientKeys.clientKeysVersion()).not.toBe(v2);
    });
  });

  it('a key remembered by a verifier is forgotten once another process revokes it, deletes its agent or changes its origins', async () => {
    await withDatabase(dialect, async (db) => {
      const u = await seedUser(db.stores, 'usr_a');
      for (const id of ['agt_1', 'agt_2', 'agt_3']) await db.stores.agents.create(agent(u, id));
      const hashKey = Buffer.alloc(32, 7);
      const keyOf = (n: number) => `mimic_ck_${String(n).repeat(43).slice(0, 43)}`;
      for (const n of [1, 2, 3]) await db.stores.clientKeys.create(clientKey(u, `agt_${n}`, `ck_${n}`, { hash: hashApiKey(hashKey, keyOf(n)) }), 5);
      // A process that has written nothing: only another's change can move what it remembers.
      const reader = await db.reopen();
      try {
        let lookups = 0;
        const counted = { ...reader.stores.clientKeys, ownerOfClientKey: (hash: string) => (lookups++, reader.stores.clientKeys.ownerOfClientKey(hash)) };
        const verify = makeClientKeyVerifier({ clientKeys: counted, hashKey });
        const check = (n: number) => verify({ key: keyOf(n), externalId: 'alice' });
        for (const n of [1, 2, 3]) expect((await check(n))?.client?.clientKeyId).toBe(`ck_${n}`);
        // Remembered: asked again, the store is not (the version stays until something changes).
        await until(async () => {
          const before = lookups;
          for (const n of [1, 2, 3]) await check(n);
          return lookups === before;
        });

        expect(await db.stores.clientKeys.revoke(u, 'agt_1', 'ck_1', 9000)).toBe(true);
        await until(async () => (await check(1)) === null);
        expect(await db.stores.agents.delete(u, 'agt_2')).toBeDefined();
        await until(async () => (await check(2)) === null);
        expect(await db.stores.clientKeys.update(u, 'agt_3', 'ck_3', { origins: ['https://moved.example'] })).toBe(true);
        await until(async () => (await check(3))?.client?.origins[0] === 'https://moved.example');
      } finally {
        await reader.close();
      }
    });
  });

  it('never creates past the limit when two processes create keys for one agent at once', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const u = await seedUser(db.stores, 'usr_a');
        await db.stores.agents.create(agent(u, 'agt_1'));
        for (let round = 0; round < 5; round++) {
          const results = await Promise.all(
            Array.from({ length: 8 }, (_, i) => (i % 2 ? other : db).stores.clientKeys.create(clientKey(u, 'agt_1', `ck_${round}_${i}`), 3 * (round + 1))),
          );
          expect(results.filter((r) => r === 'created')).toHaveLength(3);
          expect(results.filter((r) => r === 'full')).toHaveLength(5);
          expect(await db.stores.clientKeys.list(u, 'agt_1')).toHaveLength(3 * (round + 1));
        }
      } finally {
        await other.close();
      }
    });
  });
}
