import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import type { AgentRow } from '../../../src/agents/store.ts';
import { audit, secretRow, seedUser, toolRow, withDatabase } from '../seed.ts';

const agentRow = (userId: string, id: string, createdAt: number, over: Partial<AgentRow> = {}): AgentRow => ({
  id, userId, body: '{"preview_name":"a"}', secretId: null, toolIds: [], voice: null, version: 1, createdAt, modifiedAt: createdAt, ...over,
});

export function contract(dialect: Dialect): void {
  it('creates an agent only when its secret and every tool belong to the same user, keeping the tools in order', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      await stores.secrets.create(secretRow(u, 'sec_a', 1000), [], audit(u, 1000));
      await stores.secrets.create(secretRow(b, 'sec_b', 1000), [], audit(b, 1000));
      for (const [owner, id] of [[u, 'tool_1'], [u, 'tool_2'], [b, 'tool_b']] as const) await stores.tools.create(toolRow(owner, id, 1000), audit(owner, 1000));

      expect(await stores.agents.create(agentRow(u, 'agt_1', 1000, { secretId: 'sec_b' }))).toEqual({ refused: 'secret' });
      expect(await stores.agents.create(agentRow(u, 'agt_1', 1000, { secretId: 'sec_none' }))).toEqual({ refused: 'secret' });
      expect(await stores.agents.create(agentRow(u, 'agt_1', 1000, { toolIds: ['tool_1', 'tool_b'] }))).toEqual({ refused: 'tool', index: 1 });
      expect(await stores.agents.get(u, 'agt_1')).toBeUndefined();

      const row = agentRow(u, 'agt_1', 1000, { secretId: 'sec_a', toolIds: ['tool_2', 'tool_1'], voice: '{"type":"flite"}' });
      expect(await stores.agents.create(row)).toEqual(row);
      expect(await stores.agents.get(u, 'agt_1')).toEqual(row);
      expect(await stores.agents.get(b, 'agt_1')).toBeUndefined();
    });
  });

  it('lists a user’s agents newest first, in pages by (created_at, id)', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      for (const [id, at] of [['agt_a', 1000], ['agt_b', 2000], ['agt_c', 2000]] as const) await stores.agents.create(agentRow(u, id, at));
      await stores.agents.create(agentRow(b, 'agt_x', 9000));
      expect((await stores.agents.list(u, 2, null)).map((a) => a.id)).toEqual(['agt_c', 'agt_b']);
      expect((await stores.agents.list(u, 2, { createdAt: 2000, id: 'agt_b' })).map((a) => a.id)).toEqual(['agt_a']);
    });
  });

  it('updates only over the version read, replacing the tools; refuses foreign references; deletes answering the row', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      const b = await seedUser(stores, 'usr_b');
      await stores.tools.create(toolRow(u, 'tool_1', 1000), audit(u, 1000));
      await stores.tools.create(toolRow(u, 'tool_2', 1000), audit(u, 1000));
      await stores.tools.create(toolRow(b, 'tool_b', 1000), audit(b, 1000));
      await stores.agents.create(agentRow(u, 'agt_1', 1000, { toolIds: ['tool_1'] }));
      const values = { body: '{"preview_name":"b"}', secretId: null, toolIds: ['tool_2'], voice: null };

      expect(await stores.agents.update(u, 'agt_1', 1, { ...values, toolIds: ['tool_b'] }, 2000)).toEqual({ refused: 'tool', index: 0 });
      const updated = await stores.agents.update(u, 'agt_1', 1, values, 2000);
      expect(updated).toEqual({ ...agentRow(u, 'agt_1', 1000), ...values, version: 2, modifiedAt: 2000 });
      expect(await stores.agents.get(u, 'agt_1')).toEqual(updated);
      // A second writer that read version 1 does not overwrite the first one's change.
      expect(await stores.agents.update(u, 'agt_1', 1, { ...values, body: '{}' }, 3000)).toBe('conflict');
      expect(await stores.agents.update(b, 'agt_1', 2, values, 3000)).toBe('not_found');

      expect(await stores.agents.delete(b, 'agt_1')).toBeUndefined();
      expect(await stores.agents.delete(u, 'agt_1')).toEqual(updated);
      expect(await stores.agents.get(u, 'agt_1')).toBeUndefined();
      expect(await stores.agents.delete(u, 'agt_1')).toBeUndefined();
    });
  });

  it('a deleted tool leaves its agents; a secret an agent uses is kept, and goes once the agent does', async () => {
    await withDatabase(dialect, async ({ stores }) => {
      const u = await seedUser(stores, 'usr_a');
      await stores.secrets.create(secretRow(u, 'sec_a', 1000), [], audit(u, 1000));
      await stores.tools.create(toolRow(u, 'tool_1', 1000), audit(u, 1000));
      await stores.tools.create(toolRow(u, 'tool_2', 1000), audit(u, 1000));
      await stores.agents.create(agentRow(u, 'agt_1', 1000, { secretId: 'sec_a', toolIds: ['tool_1', 'tool_2'] }));
      await stores.tools.delete(u, 'tool_1', () => audit(u, 2000));
      expect((await stores.agents.get(u, 'agt_1'))?.toolIds).toEqual(['tool_2']);
      expect(await stores.secrets.delete(u, 'sec_a', () => audit(u, 2000))).toEqual({ usedBy: [], usedByAgents: ['agt_1'] });
      expect((await stores.agents.get(u, 'agt_1'))?.secretId).toBe('sec_a');
      expect(await stores.agents.delete(u, 'agt_1')).toBeTruthy();
      expect(await stores.secrets.delete(u, 'sec_a', () => audit(u, 3000))).toMatchObject({ deleted: { id: 'sec_a' } });
    });
  });

  it('of updates over one version from two processes at once, exactly one applies, with its tools', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const u = await seedUser(db.stores, 'usr_a');
        for (const id of ['tool_1', 'tool_2', 'tool_3']) await db.stores.tools.create(toolRow(u, id, 1000), audit(u, 1000));
        await db.stores.agents.create(agentRow(u, 'agt_1', 1000));
        for (let version = 1; version <= 6; version++) {
          const tries = [['tool_1', 'tool_2'], ['tool_3'], ['tool_2', 'tool_3', 'tool_1'], []].map((toolIds, i) => ({ body: `{"try":${i}}`, secretId: null, toolIds, voice: null }));
          const results = await Promise.all(tries.map((v, i) => (i % 2 ? other : db).stores.agents.update(u, 'agt_1', version, v, 2000 + version)));
          const applied = results.filter((r) => typeof r === 'object');
          expect(applied).toHaveLength(1);
          expect(results.filter((r) => r === 'conflict')).toHaveLength(tries.length - 1);
          const winner = applied[0] as AgentRow;
          expect(winner.version).toBe(version + 1);
          expect(await other.stores.agents.get(u, 'agt_1')).toEqual(winner);
          expect(winner.toolIds).toEqual(tries[Number(JSON.parse(winner.body).try)]!.toolIds);
        }
      } finally {
        await other.close();
      }
    });
  });

  it('an agent created while another process deletes its secret either keeps the secret or is refused, never left without it', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const u = await seedUser(db.stores, 'usr_a');
        for (let i = 0; i < 30; i++) {
          await db.stores.secrets.create(secretRow(u, `sec_${i}`, 1000), [], audit(u, 1000));
          const [created, deleted] = await Promise.all([
            db.stores.agents.create(agentRow(u, `agt_${i}`, 1000, { secretId: `sec_${i}` })),
            other.stores.secrets.delete(u, `sec_${i}`, () => audit(u, 2000)),
          ]);
          const agent = await db.stores.agents.get(u, `agt_${i}`);
          if ('refused' in created) {
            expect(created).toEqual({ refused: 'secret' });
            expect(deleted).toMatchObject({ deleted: { id: `sec_${i}` } });
            expect(agent).toBeUndefined();
          } else {
            expect(deleted).toEqual({ usedBy: [], usedByAgents: [`agt_${i}`] });
            expect(agent?.secretId).toBe(`sec_${i}`);
          }
        }
      } finally {
        await other.close();
      }
    });
  });
}
