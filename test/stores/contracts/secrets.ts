import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import type { AgentRow } from '../../../src/agents/store.ts';
import { audit, sealed, secretRow, seedUser, toolRow, withDatabase } from '../seed.ts';

/** Secrets need a KEK row for their sealed values' foreign key: the vault store makes one. */
async function withKek(stores: Awaited<ReturnType<Dialect['open']>>['stores']): Promise<string> {
  await stores.vault.insertFirstPrimary('kek_1', 'local', 'wrapped', 0);
  return 'kek_1';
}

export function contract(dialect: Dialect): void {
  it('creates a secret with its sealed values and audit row, and reads it back scoped to its user', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const kek = await withKek(stores);
    const u = await seedUser(stores, 'usr_a');
    await seedUser(stores, 'usr_b');
    expect(await stores.secrets.userExists(u)).toBe(true);
    expect(await stores.secrets.userExists('usr_nobody')).toBe(false);
    const row = secretRow(u, 'sec_1', 1000, { type: 'basic' });
    await stores.secrets.create(row, [sealed('username', kek), sealed('password', kek)], audit(u, 1000, { action: 'secret.created', secretId: 'sec_1' }));

    expect(await stores.secrets.get(u, 'sec_1')).toEqual(row);
    expect(await stores.secrets.get('usr_b', 'sec_1')).toBeUndefined();
    expect(await stores.secrets.getById('sec_1')).toEqual(row);
    expect((await stores.secrets.sealedValues('sec_1')).sort((x, y) => x.field.localeCompare(y.field))).toEqual([sealed('password', kek), sealed('username', kek)]);
    expect((await stores.audit.list({ userId: u }, 10, null)).map((e) => e.action)).toEqual(['secret.created']);

    const other = await db.reopen();
    try {
      expect(await other.stores.secrets.getById('sec_1')).toEqual(row);
    } finally {
      await other.close();
    }
    });
  });

  it('lists a user’s secrets newest first, in pages by (created_at, id)', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const u = await seedUser(stores, 'usr_a');
    await seedUser(stores, 'usr_b');
    for (const [id, at] of [['sec_a', 1000], ['sec_b', 2000], ['sec_c', 2000], ['sec_d', 3000]] as const) {
      await stores.secrets.create(secretRow(u, id, at), [], audit(u, at));
    }
    await stores.secrets.create(secretRow('usr_b', 'sec_x', 5000), [], audit('usr_b', 5000));
    const first = await stores.secrets.list(u, 3, null);
    expect(first.map((s) => s.id)).toEqual(['sec_d', 'sec_c', 'sec_b']);
    const next = await stores.secrets.list(u, 3, { createdAt: 2000, id: 'sec_b' });
    expect(next.map((s) => s.id)).toEqual(['sec_a']);
    expect(await stores.secrets.list(u, 3, { createdAt: 1000, id: 'sec_a' })).toEqual([]);
    });
  });

  it('replaces a credential: bumps the version, writes the values (all of them on a change of type) and the audit row', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const kek = await withKek(stores);
    const u = await seedUser(stores, 'usr_a');
    await stores.secrets.create(secretRow(u, 'sec_1', 1000, { type: 'basic' }), [sealed('username', kek), sealed('password', kek)], audit(u, 1000));

    const kept = await stores.secrets.replace(u, 'sec_1', { provider: 'p2', type: 'basic', headerName: null, updatedAt: 2000 }, { values: [sealed('password', kek, 'v2')], replaceAll: false }, audit(u, 2000, { action: 'secret.updated' }));
    expect(kept).toMatchObject({ provider: 'p2', version: 2, updatedAt: 2000, createdAt: 1000 });
    expect((await stores.secrets.sealedValues('sec_1')).map((v) => v.ciphertext).sort()).toEqual(['ct-password-v2', 'ct-username-v1']);

    const retyped = await stores.secrets.replace(u, 'sec_1', { provider: 'p2', type: 'bearer', headerName: null, updatedAt: 3000 }, { values: [sealed('token', kek)], replaceAll: true }, audit(u, 3000, { action: 'secret.updated' }));
    expect(retyped).toMatchObject({ type: 'bearer', version: 3 });
    expect((await stores.secrets.sealedValues('sec_1')).map((v) => v.field)).toEqual(['token']);
    expect(await stores.secrets.replace('usr_other', 'sec_1', { provider: 'p', type: 'bearer', headerName: null, updatedAt: 4000 }, { values: [], replaceAll: false }, audit(u, 4000))).toBeUndefined();
    expect((await stores.audit.list({ userId: u, action: 'secret.updated' }, 10, null))).toHaveLength(2);
    });
  });

  it('bumps the version in the write itself, so writes from two connections both count', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const u = await seedUser(db.stores, 'usr_a');
        await db.stores.secrets.create(secretRow(u, 'sec_1', 1000), [], audit(u, 1000));
        const patch = { provider: 'p', type: 'bearer' as const, headerName: null, updatedAt: 2000 };
        const [a, b] = await Promise.all([
          db.stores.secrets.replace(u, 'sec_1', patch, { values: [], replaceAll: false }, audit(u, 2000)),
          other.stores.secrets.replace(u, 'sec_1', patch, { values: [], replaceAll: false }, audit(u, 2000)),
        ]);
        expect([a!.version, b!.version].sort()).toEqual([2, 3]);
        expect(await other.stores.secrets.saveTokens('sec_1', null, 3000, [])).toBe(true);
        expect((await db.stores.secrets.getById('sec_1'))!.version).toBe(4);
      } finally {
        await other.close();
      }
    });
  });

  it('imports a grant over an oauth2 secret only, and saves refreshed tokens', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const kek = await withKek(stores);
    const u = await seedUser(stores, 'usr_a');
    await stores.secrets.create(secretRow(u, 'sec_bearer', 1000), [sealed('token', kek)], audit(u, 1000));
    await stores.secrets.create(
      secretRow(u, 'sec_o', 1000, { type: 'oauth2', tokenUrl: 'https://t', clientId: 'c', status: 'needs_reauthorization' }),
      [sealed('access_token', kek), sealed('refresh_token', kek), sealed('client_secret', kek)],
      audit(u, 1000),
    );
    const grant = { provider: 'p', tokenUrl: 'https://t2', clientId: 'c2', expiresAt: 9000, updatedAt: 2000 };
    expect(await stores.secrets.replaceGrant(u, 'sec_bearer', grant, [], audit(u, 2000))).toBeUndefined();
    const imported = await stores.secrets.replaceGrant(u, 'sec_o', grant, [sealed('access_token', kek, 'v2'), sealed('refresh_token', kek, 'v2')], audit(u, 2000));
    expect(imported).toMatchObject({ tokenUrl: 'https://t2', clientId: 'c2', expiresAt: 9000, status: 'active', version: 2 });
    expect((await stores.secrets.sealedValues('sec_o')).map((v) => v.field).sort()).toEqual(['access_token', 'refresh_token']);

    await stores.secrets.markNeedsReauthorization('sec_o', 3000);
    expect(await stores.secrets.getById('sec_o')).toMatchObject({ status: 'needs_reauthorization', updatedAt: 3000 });
    expect(await stores.secrets.saveTokens('sec_o', 12_000, 4000, [sealed('access_token', kek, 'v3')])).toBe(true);
    expect(await stores.secrets.getById('sec_o')).toMatchObject({ status: 'active', expiresAt: 12_000, refreshedAt: 4000, version: 3 });
    expect((await stores.secrets.sealedValues('sec_o')).find((v) => v.field === 'access_token')!.ciphertext).toBe('ct-access_token-v3');
    expect(await stores.secrets.saveTokens('sec_gone', 1, 1, [])).toBe(false);
    });
  });

  it('saves tokens and marks needs_reauthorization only over the version they read: a grant imported meanwhile wins', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const kek = await withKek(stores);
      const u = await seedUser(stores, 'usr_a');
      await stores.secrets.create(secretRow(u, 'sec_o', 1000, { type: 'oauth2', tokenUrl: 'https://t', clientId: 'c' }), [sealed('access_token', kek), sealed('refresh_token', kek)], audit(u, 1000));
      // A refresh read version 1; a new grant was imported (version 2) before it saved.
      await stores.secrets.replaceGrant(u, 'sec_o', { provider: 'p', tokenUrl: 'https://t', clientId: 'c', expiresAt: 9000, updatedAt: 2000 }, [sealed('access_token', kek, 'new'), sealed('refresh_token', kek, 'new')], audit(u, 2000));
      expect(await stores.secrets.saveTokens('sec_o', 5000, 3000, [sealed('access_token', kek, 'stale')], 1)).toBe(false);
      expect(await stores.secrets.markNeedsReauthorization('sec_o', 3000, 1)).toBe(false);
      expect(await stores.secrets.getById('sec_o')).toMatchObject({ status: 'active', expiresAt: 9000, version: 2, refreshedAt: null });
      expect((await stores.secrets.sealedValues('sec_o')).map((v) => v.ciphertext).sort()).toEqual(['ct-access_token-new', 'ct-refresh_token-new']);
      // Over the version it read, each applies.
      expect(await stores.secrets.saveTokens('sec_o', 12_000, 4000, [sealed('access_token', kek, 'v3')], 2)).toBe(true);
      expect(await stores.secrets.markNeedsReauthorization('sec_o', 5000, 3)).toBe(true);
      expect(await stores.secrets.getById('sec_o')).toMatchObject({ status: 'needs_reauthorization', expiresAt: 12_000, version: 3, updatedAt: 5000 });
    });
  });

  it('a secret deleted while a tool is created for it from another connection: never both', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const u = await seedUser(db.stores, 'usr_a');
        for (let i = 0; i < 20; i++) {
          await db.stores.secrets.create(secretRow(u, `sec_${i}`, 1000), [], audit(u, 1000));
          const [deleted, created] = await Promise.all([
            db.stores.secrets.delete(u, `sec_${i}`, () => audit(u, 2000)),
            other.stores.tools.create(toolRow(u, `tool_${i}`, 2000, { secretId: `sec_${i}` }), audit(u, 2000)),
          ]);
          const secretLeft = (await db.stores.secrets.get(u, `sec_${i}`)) !== undefined;
          const toolMade = (await db.stores.tools.get(u, `tool_${i}`)) !== undefined;
          if (deleted && 'deleted' in deleted) expect([created, secretLeft, toolMade]).toEqual(['secret_missing', false, false]);
          else expect([deleted, created !== 'secret_missing', secretLeft, toolMade]).toEqual([{ usedBy: [`tool_${i}`] }, true, true, true]);
        }
      } finally {
        await other.close();
      }
    });
  });

  it('deletes a secret no tool refers to; refuses, naming the tools, while one does', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const u = await seedUser(stores, 'usr_a');
    const row = secretRow(u, 'sec_1', 1000);
    await stores.secrets.create(row, [], audit(u, 1000));
    expect(await stores.tools.create(toolRow(u, 'tool_1', 1000, { secretId: 'sec_1' }), audit(u, 1000))).not.toBe('secret_missing');
    expect(await stores.secrets.delete(u, 'sec_1', () => audit(u, 2000))).toEqual({ usedBy: ['tool_1'] });
    expect(await stores.secrets.delete(u, 'sec_1', () => audit(u, 2000), 1)).toEqual({ usedBy: ['tool_1'] });
    await stores.tools.delete(u, 'tool_1', () => audit(u, 2000));
    expect(await stores.secrets.delete('usr_other', 'sec_1', () => audit(u, 2000))).toBeUndefined();
    const seen: string[] = [];
    expect(await stores.secrets.delete(u, 'sec_1', (deleted) => (seen.push(deleted.id), audit(u, 3000, { action: 'secret.deleted', secretId: deleted.id })))).toEqual({ deleted: row });
    expect(seen).toEqual(['sec_1']);
    expect(await stores.secrets.get(u, 'sec_1')).toBeUndefined();
    expect(await stores.secrets.delete(u, 'sec_1', () => audit(u, 4000))).toBeUndefined();
    expect((await stores.audit.list({ userId: u, action: 'secret.deleted' }, 10, null)).map((e) => e.secretId)).toEqual(['sec_1']);
    });
  });

  it('usage: the tools and agents that use each of a page of secrets, capped, with totals, only the user’s', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      for (const id of ['sec_1', 'sec_2', 'sec_3']) await stores.secrets.create(secretRow(u, id, 1000), [], audit(u, 1000));
      await stores.tools.create(toolRow(u, 'tool_1', 1000, { secretId: 'sec_1', name: 'first' }), audit(u, 1000));
      await stores.tools.create(toolRow(u, 'tool_2', 2000, { secretId: 'sec_1', name: 'second' }), audit(u, 2000));
      await stores.tools.create(toolRow(u, 'tool_3', 3000, { secretId: 'sec_2', name: 'third' }), audit(u, 3000));
      const agent = (id: string, createdAt: number, over: Partial<AgentRow>): AgentRow => ({
        id, userId: u, body: `{"preview_name":"${id}"}`, secretId: null, toolIds: [], voice: null, version: 1, createdAt, modifiedAt: createdAt, ...over,
      });
      await stores.agents.create(agent('agt_1', 1000, { secretId: 'sec_1', toolIds: ['tool_1', 'tool_3'] }));
      await stores.agents.create(agent('agt_2', 2000, { toolIds: ['tool_2'] }));

      const usage = await stores.secrets.usage(u, ['sec_1', 'sec_2', 'sec_3'], 20);
      expect(usage.get('sec_1')).toEqual({
        tools: [{ id: 'tool_2', name: 'second' }, { id: 'tool_1', name: 'first' }],
        toolsTotal: 2,
        agents: [{ id: 'agt_2', name: 'agt_2', model: false, toolIds: ['tool_2'] }, { id: 'agt_1', name: 'agt_1', model: true, toolIds: ['tool_1'] }],
        agentsTotal: 2,
      });
      expect(usage.get('sec_2')).toEqual({ tools: [{ id: 'tool_3', name: 'third' }], toolsTotal: 1, agents: [{ id: 'agt_1', name: 'agt_1', model: false, toolIds: ['tool_3'] }], agentsTotal: 1 });
      expect(usage.get('sec_3')).toEqual({ tools: [], toolsTotal: 0, agents: [], agentsTotal: 0 });

      const capped = (await stores.secrets.usage(u, ['sec_1'], 1)).get('sec_1')!;
      expect(capped).toMatchObject({ tools: [{ id: 'tool_2' }], toolsTotal: 2, agents: [{ id: 'agt_2' }], agentsTotal: 2 });
      // Another user asking about these ids sees nothing of them.
      expect((await stores.secrets.usage(b, ['sec_1'], 20)).get('sec_1')).toEqual({ tools: [], toolsTotal: 0, agents: [], agentsTotal: 0 });
      expect((await stores.secrets.usage(u, [], 20)).size).toBe(0);
    });
  });

  it('the oauth2 refresh lock: one owner at a time across connections, released only by its owner; freed by expiry (SQLite) or by its holder’s connection closing (PostgreSQL)', async () => {
    await withDatabase(dialect, async (db) => {
      const u = await seedUser(db.stores, 'usr_a');
      await db.stores.secrets.create(secretRow(u, 'sec_1', 1000, { type: 'oauth2', tokenUrl: 'https://t', clientId: 'c' }), [], audit(u, 1000));
      // Three other processes' connections: one of them is closed below.
      const [a, b, c] = [await db.reopen(), await db.reopen(), await db.reopen()];
      try {
        const [one, two] = await Promise.all([a.stores.secretLocks.take('sec_1', 'one', 1000, 500), b.stores.secretLocks.take('sec_1', 'two', 1000, 500)]);
        expect([one, two].filter(Boolean)).toHaveLength(1);
        const [holder, waiter] = one ? [a, b] : [b, a];
        const owner = one ? 'one' : 'two';
        expect(await holder.stores.secretLocks.take('sec_1', 'same-process', 1000, 500)).toBe(false);
        await waiter.stores.secretLocks.release('sec_1', 'not-the-owner');
        expect(await waiter.stores.secretLocks.take('sec_1', 'three', 1100, 500)).toBe(false);
        await holder.stores.secretLocks.release('sec_1', owner);
        expect(await waiter.stores.secretLocks.take('sec_1', 'three', 1100, 500)).toBe(true);

        if (dialect.name === 'sqlite') {
          // A holder that died leaves its lease: it runs out.
          expect(await c.stores.secretLocks.take('sec_1', 'four', 1599, 500)).toBe(false);
          expect(await c.stores.secretLocks.take('sec_1', 'four', 1600, 500)).toBe(true);
        } else {
          // A holder that dies loses its connection (here: ended by the server): the lock goes with it, no lease to wait out.
          expect(await c.stores.secretLocks.take('sec_1', 'four', 1100, 500)).toBe(false);
          const ended = await db.rows(
            `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
          );
          expect(ended).toHaveLength(1);
          let taken = false;
          for (let tries = 0; !taken && tries < 1500; tries++) {
            taken = await c.stores.secretLocks.take('sec_1', 'four', 1100, 500);
            if (!taken) await new Promise((r) => setTimeout(r, 20));
          }
          expect(taken).toBe(true);
        }
      } finally {
        for (const other of [a, b, c]) await other.close().catch(() => {});
      }
    });
  });
}
