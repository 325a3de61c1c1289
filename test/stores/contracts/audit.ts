import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import { audit, seedUser, withDatabase } from '../seed.ts';

export function contract(dialect: Dialect): void {
  it('appends events and lists them newest first, filtered and paged by (at, id)', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const u = await seedUser(stores, 'usr_a');
    await seedUser(stores, 'usr_b');
    await stores.audit.append(audit(u, 1000, { id: 'aud_1', action: 'tool.created', toolId: 'tool_1' }));
    await stores.audit.append(audit(u, 2000, { id: 'aud_2', action: 'secret.used', secretId: 'sec_1', toolId: 'tool_1', callId: 'call_1', externalId: 'shopper.7_eu', detail: { upstream_status: 200 } }));
    await stores.audit.append(audit(u, 2000, { id: 'aud_3', action: 'secret.used', secretId: 'sec_2', toolId: 'tool_1' }));
    await stores.audit.append(audit(u, 3000, { id: 'aud_4', action: 'secret.created', secretId: 'sec_1' }));
    await stores.audit.append(audit('usr_b', 4000, { id: 'aud_5', action: 'secret.created', secretId: 'sec_1' }));

    const all = await stores.audit.list({ userId: u }, 10, null);
    expect(all.map((e) => e.id)).toEqual(['aud_4', 'aud_3', 'aud_2', 'aud_1']);
    expect(all[2]).toEqual({
      id: 'aud_2', userId: u, at: 2000, action: 'secret.used', outcome: 'success', secretId: 'sec_1', toolId: 'tool_1', callId: 'call_1',
      externalId: 'shopper.7_eu', detail: '{"upstream_status":200}',
    });
    expect(all[3]!.externalId).toBeNull();
    expect(all[3]!.detail).toBe('{}');

    const first = await stores.audit.list({ userId: u }, 2, null);
    expect(first.map((e) => e.id)).toEqual(['aud_4', 'aud_3']);
    const next = await stores.audit.list({ userId: u }, 2, { createdAt: first[1]!.at, id: first[1]!.id });
    expect(next.map((e) => e.id)).toEqual(['aud_2', 'aud_1']);

    expect((await stores.audit.list({ userId: u, secretId: 'sec_1' }, 10, null)).map((e) => e.id)).toEqual(['aud_4', 'aud_2']);
    expect((await stores.audit.list({ userId: u, toolId: 'tool_1', action: 'secret.used' }, 10, null)).map((e) => e.id)).toEqual(['aud_3', 'aud_2']);
    expect((await stores.audit.list({ userId: u, secretId: 'sec_1', action: 'secret.used' }, 10, { createdAt: 2000, id: 'aud_3' })).map((e) => e.id)).toEqual(['aud_2']);
    expect((await stores.audit.list({ userId: 'usr_b' }, 10, null)).map((e) => e.id)).toEqual(['aud_5']);

    const other = await db.reopen();
    try {
      expect((await other.stores.audit.list({ userId: u }, 1, null))[0]!.id).toBe('aud_4');
    } finally {
      await other.close();
    }
    });
  });
}
