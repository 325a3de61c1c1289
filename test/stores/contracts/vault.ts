import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import { audit, sealed, secretRow, seedUser, withDatabase } from '../seed.ts';

export function contract(dialect: Dialect): void {
  it('keeps one primary KEK: the first insert wins across connections, a promotion demotes the previous one', async () => {
    const a = await dialect.open();
    const b = await a.reopen();
    try {
      expect(await a.stores.vault.primaryId()).toBeUndefined();
      expect(await a.stores.vault.insertFirstPrimary('kek_1', 'local', 'w1', 1000)).toBe(true);
      expect(await b.stores.vault.insertFirstPrimary('kek_2', 'local', 'w2', 1001)).toBe(false);
      expect(await b.stores.vault.primaryId()).toBe('kek_1');
      expect(await b.stores.vault.key('kek_1')).toEqual({ id: 'kek_1', provider: 'local', wrapped: 'w1', status: 'primary', created_at: 1000, demoted_at: null });
      expect(await b.stores.vault.key('kek_2')).toBeUndefined();

      await b.stores.vault.promote('kek_3', 'local', 'w3', 2000);
      expect(await a.stores.vault.primaryId()).toBe('kek_3');
      expect((await a.stores.vault.keys()).map((k) => [k.id, k.status, k.demoted_at])).toEqual([
        ['kek_1', 'active', 2000],
        ['kek_3', 'primary', null],
      ]);
      expect(await a.stores.vault.nonPrimaryIds()).toEqual(['kek_1']);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('records a meta value once and answers the stored one after', async () => {
    await withDatabase(dialect, async (db) => {
    expect(await db.stores.vault.recordMeta('master_key_check', 'A')).toBe('A');
    expect(await db.stores.vault.recordMeta('master_key_check', 'B')).toBe('A');
    });
  });

  it('walks one KEK’s sealed values in (secret, field) batches, re-wraps them only if unchanged, and retires unused KEKs', async () => {
    await withDatabase(dialect, async (db) => {
    const { stores } = db;
    const u = await seedUser(stores, 'usr_a');
    await stores.vault.insertFirstPrimary('kek_old', 'local', 'w', 1000);
    for (const id of ['sec_2', 'sec_1', 'sec_3']) {
      await stores.secrets.create(secretRow(u, id, 1000, { type: 'basic' }), [sealed('username', 'kek_old'), sealed('password', 'kek_old')], audit(u, 1000));
    }
    await stores.vault.promote('kek_new', 'local', 'w2', 2000);
    expect(await stores.vault.dataKeyCounts()).toEqual(new Map([['kek_old', 6]]));

    const seen: string[] = [];
    let after = null;
    for (;;) {
      const rows = await stores.vault.batch('kek_old', after, 4);
      if (rows.length === 0) break;
      seen.push(...rows.map((r) => `${r.secret_id}/${r.field}`));
      expect(rows.every((r) => r.user_id === u && r.kek_id === 'kek_old')).toBe(true);
      const last = rows.at(-1)!;
      after = { secretId: last.secret_id, field: last.field };
    }
    expect(seen).toEqual(['sec_1/password', 'sec_1/username', 'sec_2/password', 'sec_2/username', 'sec_3/password', 'sec_3/username']);

    const rows = await stores.vault.batch('kek_old', null, 10);
    const rewraps = rows.map((r) => ({ secretId: r.secret_id, field: r.field, oldKekId: 'kek_old', oldWrappedKey: r.wrapped_key, newKekId: 'kek_new', newWrappedKey: `new-${r.wrapped_key}` }));
    // One row replaced meanwhile (a PUT): its re-wrap must not apply.
    await stores.secrets.replace(u, 'sec_2', { provider: 'p', type: 'basic', headerName: null, updatedAt: 3000 }, { values: [sealed('password', 'kek_old', 'put')], replaceAll: false }, audit(u, 3000));
    expect(await stores.vault.applyRewraps(rewraps)).toBe(5);
    expect(await stores.vault.retireUnused()).toEqual([]);
    expect(await stores.vault.dataKeyCounts()).toEqual(new Map([['kek_new', 5], ['kek_old', 1]]));
    expect((await stores.secrets.sealedValues('sec_1')).map((v) => [v.kekId, v.wrappedKey]).sort()).toEqual([
      ['kek_new', 'new-wk-password-v1'],
      ['kek_new', 'new-wk-username-v1'],
    ]);

    const [left] = await stores.vault.batch('kek_old', null, 10);
    expect(left).toMatchObject({ secret_id: 'sec_2', field: 'password', wrapped_key: 'wk-password-put' });
    expect(await stores.vault.applyRewraps([{ secretId: 'sec_2', field: 'password', oldKekId: 'kek_old', oldWrappedKey: 'wk-password-put', newKekId: 'kek_new', newWrappedKey: 'x' }])).toBe(1);
    expect(await stores.vault.retireUnused()).toEqual(['kek_old']);
    expect((await stores.vault.key('kek_old'))!.status).toBe('retired');
    expect(await stores.vault.retireUnused()).toEqual([]);
    });
  });
}
