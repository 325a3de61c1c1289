import { describe, expect, it } from 'vitest';
import { DIALECTS, type OpenStores } from '../stores/dialects.ts';
import { runDataMigrations, type DataMigration } from '../../src/db/data-migrations.ts';
import { dataMigrationStoreOn } from '../../src/db/data-migrations-pg.ts';
import { createLogger } from '../../src/log.ts';

/** A migration that counts its runs; it waits a turn of the event loop so two starts interleave. */
function counting(name: string, over: Partial<DataMigration> = {}) {
  const m = {
    runs: 0,
    name,
    async run() {
      m.runs++;
      await new Promise((r) => setImmediate(r));
      return { rows: 3 };
    },
    ...over,
  };
  return m;
}

const recorded = async (db: OpenStores) =>
  (await db.rows<{ name: string; report: string; applied_at: number }>('SELECT name, report, applied_at FROM data_migrations ORDER BY name')).map((r) => ({
    name: r.name,
    report: JSON.parse(r.report) as unknown,
    at: Number(r.applied_at),
  }));

for (const dialect of DIALECTS) {
  describe(`data migrations on ${dialect.name}`, () => {
    it('runs each pending migration once, in order, and records its report; a failure stops the start and runs again at the next', async () => {
      const db = await dialect.open();
      try {
        const store = dataMigrationStoreOn(db.stores.handle);
        const logs: string[] = [];
        const log = createLogger((l) => logs.push(l));
        const order: string[] = [];
        const first = counting('2026-01-first', { run: async () => (order.push('first'), { rows: 1 }) });
        let broken = true;
        const second = counting('2026-02-second', {
          run: async () => {
            order.push('second');
            if (broken) throw new Error('the vault is not ready');
            return { rows: 2 };
          },
        });
        await expect(runDataMigrations(store, [first, second], () => 7_000, log)).rejects.toThrow('the vault is not ready');
        expect(await recorded(db)).toEqual([{ name: '2026-01-first', report: { rows: 1 }, at: 7_000 }]);

        broken = false;
        await runDataMigrations(store, [first, second], () => 8_000, log);
        expect(order).toEqual(['first', 'second', 'second']);
        expect(await recorded(db)).toEqual([
          { name: '2026-01-first', report: { rows: 1 }, at: 7_000 },
          { name: '2026-02-second', report: { rows: 2 }, at: 8_000 },
        ]);
        expect(logs.filter((l) => l.includes('data migration applied'))).toHaveLength(2);
      } finally {
        await db.close();
      }
    });

    it('a scrubbing migration is recorded once its rewrite is done and the old versions are cleaned up', async () => {
      const db = await dialect.open();
      try {
        const m = counting('2026-03-scrub', { scrubs: true });
        await runDataMigrations(dataMigrationStoreOn(db.stores.handle), [m], () => 9_000, createLogger(() => {}));
        await runDataMigrations(dataMigrationStoreOn(db.stores.handle), [m], () => 9_500, createLogger(() => {}));
        expect(m.runs).toBe(1);
        expect(await recorded(db)).toEqual([{ name: '2026-03-scrub', report: { rows: 3 }, at: 9_000 }]);
      } finally {
        await db.close();
      }
    });

    it.runIf(dialect.name === 'postgres')('two processes starting together run each migration once', async () => {
      const a = await dialect.open();
      const b = await a.reopen();
      try {
        for (let round = 0; round < 5; round++) {
          const ms = [counting(`2026-04-a${round}`), counting(`2026-04-b${round}`, { scrubs: true }), counting(`2026-04-c${round}`)];
          const quiet = createLogger(() => {});
          await Promise.all([a, b, a, b].map((s) => runDataMigrations(dataMigrationStoreOn(s.stores.handle), ms, () => 1_000, quiet)));
          expect(ms.map((m) => m.runs)).toEqual([1, 1, 1]);
        }
        expect(await recorded(a)).toHaveLength(15);
      } finally {
        await b.close();
        await a.close();
      }
    });
  });
}
