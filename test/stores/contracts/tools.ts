import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import { audit, secretRow, seedUser, toolRow, withDatabase } from '../seed.ts';

export function contract(dialect: Dialect): void {
  it('creates a tool (with its audit row) only when its secret belongs to the same user', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const u = await seedUser(stores, 'usr_a');
    const b = await seedUser(stores, 'usr_b');
    await stores.secrets.create(secretRow(b, 'sec_b', 1000), [], audit(b, 1000));
    expect(await stores.tools.create(toolRow(u, 'tool_1', 1000, { secretId: 'sec_b' }), audit(u, 1000))).toBe('secret_missing');
    expect(await stores.tools.create(toolRow(u, 'tool_1', 1000, { secretId: 'sec_none' }), audit(u, 1000))).toBe('secret_missing');
    expect(await stores.tools.get(u, 'tool_1')).toBeUndefined();

    await stores.secrets.create(secretRow(u, 'sec_a', 1000), [], audit(u, 1000));
    const row = toolRow(u, 'tool_1', 1000, { secretId: 'sec_a' });
    expect(await stores.tools.create(row, audit(u, 1000, { id: 'aud_tool', action: 'tool.created', toolId: 'tool_1' }))).toEqual(row);
    expect(await stores.tools.get(u, 'tool_1')).toEqual(row);
    expect(await stores.tools.get(b, 'tool_1')).toBeUndefined();
    expect((await stores.audit.list({ userId: u, toolId: 'tool_1' }, 10, null)).map((e) => e.id)).toEqual(['aud_tool']);
    });
  });

  it('lists a user’s tools newest first, in pages by (created_at, id)', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const u = await seedUser(stores, 'usr_a');
    await seedUser(stores, 'usr_b');
    for (const [id, at] of [['tool_a', 1000], ['tool_b', 2000], ['tool_c', 2000]] as const) await stores.tools.create(toolRow(u, id, at), audit(u, at));
    await stores.tools.create(toolRow('usr_b', 'tool_x', 9000), audit('usr_b', 9000));
    expect((await stores.tools.list(u, 2, null)).map((t) => t.id)).toEqual(['tool_c', 'tool_b']);
    expect((await stores.tools.list(u, 2, { createdAt: 2000, id: 'tool_b' })).map((t) => t.id)).toEqual(['tool_a']);
    });
  });

  it('replaces a tool, building the audit row from the row as it was; deletes with its audit row', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const u = await seedUser(stores, 'usr_a');
    await stores.secrets.create(secretRow(u, 'sec_a', 1000), [], audit(u, 1000));
    await stores.tools.create(toolRow(u, 'tool_1', 1000), audit(u, 1000));
    const values = { name: 'n2', description: 'd2', provider: 'p2', schema: '{"parameters":{"type":"object","properties":{}}}', config: '{"type":"client"}', secretId: 'sec_a' };
    const before: (string | null)[] = [];
    const replaced = await stores.tools.replace(u, 'tool_1', values, 2000, (current) => (before.push(current.secretId), audit(u, 2000, { action: 'tool.updated' })));
    expect(replaced).toEqual({ ...toolRow(u, 'tool_1', 1000), ...values, updatedAt: 2000 });
    expect(before).toEqual([null]);
    expect(await stores.tools.get(u, 'tool_1')).toEqual(replaced);
    expect(await stores.tools.replace(u, 'tool_1', { ...values, secretId: 'sec_none' }, 3000, () => audit(u, 3000))).toBe('secret_missing');
    expect(await stores.tools.replace('usr_other', 'tool_1', values, 3000, () => audit(u, 3000))).toBe('not_found');
    expect(await stores.tools.get(u, 'tool_1')).toEqual(replaced);

    expect(await stores.tools.delete(u, 'tool_1', (row) => audit(u, 4000, { action: 'tool.deleted', toolId: row.id }))).toEqual(replaced);
    expect(await stores.tools.get(u, 'tool_1')).toBeUndefined();
    expect(await stores.tools.delete(u, 'tool_1', () => audit(u, 5000))).toBeUndefined();
    expect((await stores.audit.list({ userId: u }, 10, null)).map((e) => e.action).slice(0, 2)).toEqual(['tool.deleted', 'tool.updated']);
    });
  });

  it('records a call: its audit row, and the secret marked used, never back in time', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const u = await seedUser(stores, 'usr_a');
    await stores.secrets.create(secretRow(u, 'sec_a', 1000), [], audit(u, 1000));
    await stores.tools.recordCall(audit(u, 5000, { id: 'aud_call1', toolId: 'tool_1', secretId: 'sec_a', callId: 'call_1' }), 'sec_a');
    expect((await stores.secrets.getById('sec_a'))!.lastUsedAt).toBe(5000);
    await stores.tools.recordCall(audit(u, 4000, { id: 'aud_call2', callId: 'call_2' }), 'sec_a');
    expect((await stores.secrets.getById('sec_a'))!.lastUsedAt).toBe(5000);
    await stores.tools.recordCall(audit(u, 6000, { id: 'aud_call3', action: 'tool.called' }), null);
    expect((await stores.secrets.getById('sec_a'))!.lastUsedAt).toBe(5000);
    expect((await stores.audit.list({ userId: u, toolId: 'tool_1' }, 10, null)).map((e) => e.callId)).toEqual(['call_1']);
    expect((await stores.audit.list({ userId: u }, 10, null)).map((e) => e.id).slice(0, 3)).toEqual(['aud_call3', 'aud_call1', 'aud_call2']);
    });
  });

  it('records calls from two connections at once: every audit row, and the secret’s last use the latest of them', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const u = await seedUser(db.stores, 'usr_a');
        await db.stores.secrets.create(secretRow(u, 'sec_a', 1000), [], audit(u, 1000));
        const at = Array.from({ length: 20 }, (_, i) => 5000 + ((i * 7) % 20));
        await Promise.all(at.map((t, i) => (i % 2 ? other : db).stores.tools.recordCall(audit(u, t, { id: `aud_concurrent_${i}`, toolId: 'tool_1', secretId: 'sec_a' }), 'sec_a')));
        expect((await db.stores.secrets.getById('sec_a'))!.lastUsedAt).toBe(Math.max(...at));
        expect(await db.stores.audit.list({ userId: u, toolId: 'tool_1' }, 100, null)).toHaveLength(20);
      } finally {
        await other.close();
      }
    });
  });
}
