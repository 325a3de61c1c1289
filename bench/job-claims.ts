/**
 * Benchmark of job claims: four claimers, each on its own connection (SQLite) or pool
 * (PostgreSQL, a throwaway cluster from scripts/ensure-postgres.mjs), claim a queue of jobs
 * at once until it is empty; claims per second, and a check that no job was taken twice.
 * Then the same with each claim followed by its completion (what a runner does). SQLite and
 * PostgreSQL side by side in one run; medians of several rounds; never fails on timing.
 *
 *   node --import tsx bench/job-claims.ts [jobs per round, default 4000]
 *
 * The four claimers share this one process (as four runner processes would share the
 * database); the cluster runs with fsync and synchronous_commit off (a throwaway one).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../src/db/client.ts';
import { openPgDatabase, type PgDatabase } from '../src/db/pg/database.ts';
import { createJobStore, type JobQueue } from '../src/jobs/store.ts';
import { createPgJobStore } from '../src/jobs/store-pg.ts';
import { randomId, systemClock } from '../src/clock.ts';
import { startCluster } from '../scripts/ensure-postgres.mjs';
import { median } from './stats.ts';

const JOBS = Number(process.argv[2] ?? 4000);
const CLAIMERS = 4;
const ROUNDS = 5;

interface Setup {
  name: string;
  queues: JobQueue[];
  empty(): Promise<void>;
  close(): Promise<void>;
}

async function sqliteSetup(): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), 'mimic-bench-claims-'));
  const file = join(dir, 'mimic.db');
  const handles = Array.from({ length: CLAIMERS }, () => openStore(file));
  return {
    name: 'SQLite',
    queues: handles.map((h) => createJobStore(h, systemClock, randomId)),
    empty: async () => void handles[0]!.sqlite.exec('DELETE FROM jobs'),
    async close() {
      for (const h of handles) h.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresSetup(admin: string): Promise<Setup> {
  const client = new pg.Client(admin);
  await client.connect();
  await client.query('CREATE DATABASE bench_claims');
  await client.end();
  const u = new URL(admin);
  u.pathname = '/bench_claims';
  const settings = { url: u.toString(), max: 2, idleTimeoutMs: 10_000, connectionTimeoutMs: 30_000, statementTimeoutMs: 0 };
  const handles: PgDatabase[] = Array.from({ length: CLAIMERS }, () => openPgDatabase(settings));
  await handles[0]!.ready();
  return {
    name: 'PostgreSQL',
    queues: handles.map((h) => createPgJobStore(h, systemClock, randomId)),
    empty: async () => void (await handles[0]!.pool.query('TRUNCATE jobs')),
    async close() {
      for (const h of handles) await h.close();
    },
  };
}

/** Fills the queue, then lets every claimer claim (and maybe complete) until it is empty: claims per second. */
async function round(s: Setup, complete: boolean): Promise<number> {
  await s.empty();
  const q = s.queues[0]!;
  for (let i = 0; i < JOBS; i += 100) {
    await Promise.all(Array.from({ length: Math.min(100, JOBS - i) }, (_, k) => q.enqueue({ kind: 'bench', resourceId: `r${i + k}`, userId: 'u', maxAttempts: 3 })));
  }
  const seen = new Set<string>();
  let twice = 0;
  const started = performance.now();
  await Promise.all(
    s.queues.map(async (queue, c) => {
      const owner = `claimer-${c}`;
      for (;;) {
        const job = await queue.claim(owner, 60_000);
        if (!job) return;
        if (seen.has(job.id)) twice++;
        seen.add(job.id);
        if (complete && !(await queue.complete(job.id, owner))) throw new Error(`claimer ${c} could not complete its job`);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (twice > 0 || seen.size !== JOBS) throw new Error(`${s.name}: ${twice} jobs claimed twice, ${seen.size} of ${JOBS} claimed`);
  return JOBS / seconds;
}

const cpu = cpus();
console.log(`machine: ${cpu[0]?.model}, ${cpu.length} cores, node ${process.version}`);
console.log(`${CLAIMERS} claimers, ${JOBS} jobs per round, median of ${ROUNDS} rounds; every round checks that no job was claimed twice\n`);

const cluster = await startCluster();
const setups = [await sqliteSetup(), await postgresSetup(cluster.url)];
try {
  const c = new pg.Client(cluster.url);
  await c.connect();
  const version = (await c.query<{ server_version: string }>('SHOW server_version')).rows[0]!.server_version;
  await c.end();
  console.log(`PostgreSQL ${version} (throwaway cluster on this machine, fsync off)\n`);
  const results: Record<string, { claim: number; cycle: number }> = {};
  for (const s of setups) {
    await round(s, false); // warm: statements prepared on every connection
    const claims: number[] = [];
    const cycles: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      claims.push(await round(s, false));
      cycles.push(await round(s, true));
    }
    results[s.name] = { claim: median(claims), cycle: median(cycles) };
    console.log(`${s.name.padEnd(11)} claims: ${Math.round(median(claims)).toString().padStart(6)}/s   claim + complete: ${Math.round(median(cycles)).toString().padStart(6)} jobs/s   (rounds: ${claims.map(Math.round).join(', ')})`);
  }
  const pgClaims = results.PostgreSQL!.claim;
  console.log(`\n=> PostgreSQL: ${Math.round(pgClaims)} claims/s across ${CLAIMERS} claimers, none twice (goal >= 500/s: ${pgClaims >= 500 ? 'met' : 'missed'}); ${(pgClaims / results.SQLite!.claim).toFixed(2)}x SQLite`);
} finally {
  for (const s of setups) await s.close();
  cluster.stop();
}
