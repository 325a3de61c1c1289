import { expect, it } from 'vitest';
import type { Dialect } from '../dialects.ts';
import { withDatabase } from '../seed.ts';

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
    // Sealed values are seeded with SQL: the vault store walks rows whoever wrote them.
    const u = 'usr_a';
    await db.rows('INSERT INTO users (id, name, credits, permissions, created_at) VALUES ($1, $2, 0, $3, 0)', [u, u, '[]']);
    await stores.vault.insertFirstPrimary('kek_old', 'local', 'w', 1000);
    for (const id of ['sec_2', 'sec_1', 'sec_3']) {
      await db.rows(`INSERT INTO secrets (id, user_id, provider, type, status, version, created_at, updated_at) VALUES ($1, $2, 'p', 'basic', 'active', 1, 1000, 1000)`, [id, u]);
      for (const field of ['username', 'password']) {
        await db.rows('INSERT INTO secret_fields (secret_id, field, kek_id, wrapped_key, ciphertext) VALUES ($1, $2, $3, $4, $5)', [id, field, 'kek_old', `wk-${field}-v1`, `ct-${field}-v1`]);
      }
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
    await db.rows(`UPDATE secret_fields SET wrapped_key = 'wk-password-put', ciphertext = 'ct-password-put' WHERE secret_id = 'sec_2' AND field = 'password'`);
    expect(await stores.vault.applyRewraps(rewraps)).toBe(5);
    expect(await stores.vault.retireUnused()).toEqual([]);
    expect(await stores.vault.dataKeyCounts()).toEqual(new Map([['kek_new', 5], ['kek_old', 1]]));
    expect((await db.rows<{ kek_id: string; wrapped_key: string }>('SELECT kek_id, wrapped_key FROM secret_fields WHERE secret_id = $1', ['sec_1'])).map((v) => [v.kek_id, v.wrapped_key]).sort()).toEqual([
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

  it('from several connections at once: one first primary, one primary after concurrent promotions, one meta value', async () => {
    await withDatabase(dialect, async (db) => {
      const others = await Promise.all([db.reopen(), db.reopen(), db.reopen()]);
      try {
        const all = [db, ...others];
        const firsts = await Promise.all(all.map((c, i) => c.stores.vault.insertFirstPrimary(`kek_first_${i}`, 'local', 'w', 1000)));
        expect(firsts.filter(Boolean)).toHaveLength(1);
        expect(await db.rows(`SELECT id FROM vault_keys WHERE status = 'primary'`)).toHaveLength(1);

        for (let round = 0; round < 3; round++) {
          await Promise.all(all.map((c, i) => c.stores.vault.promote(`kek_${round}_${i}`, 'local', 'w', 2000 + round)));
          expect(await db.rows(`SELECT id FROM vault_keys WHERE status = 'primary'`)).toHaveLength(1);
        }
        expect(await db.rows(`SELECT id FROM vault_keys`)).toHaveLength(1 + 3 * all.length);

        const metas = await Promise.all(all.map((c, i) => c.stores.vault.recordMeta('master_key_check', `v${i}`)));
        expect(new Set(metas).size).toBe(1);
      } finally {
        await Promise.all(others.map((o) => o.close()));
      }
    });
  });

  it('re-wraps racing writers from another connection: every row ends either re-wrapped from what it held or as the writer left it', async () => {
    await withDatabase(dialect, async (db) => {
      const other = await db.reopen();
      try {
        const u = 'usr_a';
        await db.rows('INSERT INTO users (id, name, credits, permissions, created_at) VALUES ($1, $2, 0, $3, 0)', [u, u, '[]']);
        await db.stores.vault.insertFirstPrimary('kek_old', 'local', 'w', 1000);
        await db.rows(`INSERT INTO secrets (id, user_id, provider, type, status, version, created_at, updated_at) VALUES ('sec_1', $1, 'p', 'bearer', 'active', 1, 1, 1)`, [u]);
        const fields = Array.from({ length: 40 }, (_, i) => `f${String(i).padStart(2, '0')}`);
        for (const f of fields) await db.rows(`INSERT INTO secret_fields (secret_id, field, kek_id, wrapped_key, ciphertext) VALUES ('sec_1', $1, 'kek_old', $2, 'ct')`, [f, `wk-${f}`]);
        await db.stores.vault.promote('kek_new', 'local', 'w2', 2000);

        const rows = await db.stores.vault.batch('kek_old', null, 100);
        expect(rows).toHaveLength(40);
        const rewraps = rows.map((r) => ({ secretId: r.secret_id, field: r.field, oldKekId: r.kek_id, oldWrappedKey: r.wrapped_key, newKekId: 'kek_new', newWrappedKey: `new-${r.wrapped_key}` }));
        // A writer puts a new value in every third field (under the old KEK, as a process that read the primary just before the switch) while the batch applies.
        const written = new Set(fields.filter((_, i) => i % 3 === 0));
        const [applied] = await Promise.all([
          db.stores.vault.applyRewraps(rewraps),
          Promise.all([...written].map((f) => other.rows(`UPDATE secret_fields SET kek_id = 'kek_old', wrapped_key = $1 WHERE secret_id = 'sec_1' AND field = $2`, [`put-${f}`, f]))),
        ]);
        // Whichever came first, the writer's value stands; every other row is re-wrapped from what it held.
        const after = await db.rows<{ field: string; kek_id: string; wrapped_key: string }>(`SELECT field, kek_id, wrapped_key FROM secret_fields ORDER BY field`);
        expect(after).toEqual(fields.map((f) => (written.has(f) ? { field: f, kek_id: 'kek_old', wrapped_key: `put-${f}` } : { field: f, kek_id: 'kek_new', wrapped_key: `new-wk-${f}` })));
        // Those written after their re-wrap counted as re-wrapped, and were then replaced.
        expect(applied).toBeGreaterThanOrEqual(fields.length - written.size);
        expect(applied).toBeLessThanOrEqual(fields.length);
      } finally {
        await other.close();
      }
    });
  });
}
