/**
 * The database's readiness checks on PostgreSQL: it answers (a round trip from the pool), and
 * it carries this version's migrations; an unreachable server fails the check instead of
 * hanging the answer.
 */
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createServer, type Socket } from 'node:net';
import { freshPostgres } from '../stores/dialects.ts';
import { banner } from '../helpers/postgres-setup.ts';
import { openPgDatabase, migrateLocked, type PgDatabase } from '../../src/db/pg/database.ts';
import { databaseAnswers, migrationsApplied } from '../../src/db/health.ts';
import { createReadiness } from '../../src/platform/readiness.ts';
import { createLogger } from '../../src/log.ts';

const admin = inject('postgresUrl');
if (!admin) console.error(banner(['PostgreSQL SKIPPED: test/db/health.test.ts needs the run\'s PostgreSQL cluster (see the banner above).']));

const settings = (url: string) => ({ url, max: 2, idleTimeoutMs: 10_000, connectionTimeoutMs: 30_000, statementTimeoutMs: 60_000 });
const opened: PgDatabase[] = [];
const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
  for (const drop of drops) await drop();
});

describe.skipIf(!admin)('readiness on PostgreSQL', () => {
  it('answers; migrations are missing until applied', async () => {
    const fresh = await freshPostgres(admin!);
    drops.push(fresh.drop);
    const db = openPgDatabase(settings(fresh.url));
    opened.push(db);
    await databaseAnswers(db);
    await expect(migrationsApplied(db)).rejects.toThrow();
    await migrateLocked(db.pool);
    await migrationsApplied(db);
  });

  it('a server that does not answer is failed or timed out, within the timeout', async () => {
    // A port that accepts and never speaks: the check must not wait for the pool's connect timeout.
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket)).listen(0, '127.0.0.1');
    await new Promise((r) => silent.once('listening', r));
    const { port } = silent.address() as { port: number };
    const db = openPgDatabase({ ...settings(`postgres://mimic@127.0.0.1:${port}/mimic`), connectionTimeoutMs: 2_000 });
    opened.push(db);
    const r = createReadiness({ log: createLogger(() => {}), timeoutMs: 300 });
    r.add('database', () => databaseAnswers(db));
    const started = Date.now();
    expect(await r.run()).toEqual({ ready: false, checks: { database: 'timed out' } });
    expect(Date.now() - started).toBeLessThan(10_000);
    for (const socket of held) socket.destroy();
    silent.close();
  });
});
