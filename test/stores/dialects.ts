import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { openStore } from '../../src/db/client.ts';
import { openPgDatabase } from '../../src/db/pg/database.ts';
import type { Database } from '../../src/db/database.ts';
import { createAllStores, type AllStores } from '../helpers/stores.ts';
import { banner } from '../helpers/postgres-setup.ts';

/**
 * A database the store contract suite runs against: SQLite in a temporary file, and
 * PostgreSQL in the test run's throwaway cluster (test/helpers/postgres-setup.ts), a new
 * database per `open()`. The contracts under contracts/ are written once for both.
 */
export interface Dialect {
  name: 'sqlite' | 'postgres';
  /** A fresh, migrated, empty database and its stores. */
  open(): Promise<OpenStores>;
}

export interface OpenStores {
  stores: AllStores;
  /** A second, independent connection to the same database (another process's view). */
  reopen(): Promise<OpenStores>;
  /** Runs SQL written with `$1` parameters (on SQLite they become `?`); the rows. */
  rows<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

/** `$1`, `$2`... as SQLite's positional `?` (values in order: the contracts number them so). */
const positional = (text: string) => text.replace(/\$\d+/g, '?');

function sqliteAt(file: string, cleanup?: () => void): OpenStores {
  const handle = openStore(file);
  return {
    stores: createAllStores(handle),
    reopen: async () => sqliteAt(file),
    rows: async <R,>(text: string, values: unknown[] = []) => {
      const stmt = handle.sqlite.prepare(positional(text));
      return (stmt.reader ? stmt.all(...values) : (stmt.run(...values), [])) as R[];
    },
    close: async () => {
      handle.close();
      cleanup?.();
    },
  };
}

export const sqlite: Dialect = {
  name: 'sqlite',
  async open() {
    const dir = mkdtempSync(join(tmpdir(), 'mimic-stores-'));
    return sqliteAt(join(dir, 'mimic.db'), () => rmSync(dir, { recursive: true, force: true }));
  },
};

/** The URL of database `name` in the cluster `admin` points at. */
const urlOf = (admin: string, name: string) => {
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return u.toString();
};

const settings = (url: string) => ({ url, max: 10, idleTimeoutMs: 10_000, connectionTimeoutMs: 30_000, statementTimeoutMs: 60_000 });

/** A new, migrated, empty database in the test cluster; dropped by `drop()`. */
export async function freshPostgres(admin: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `mimic_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client(admin);
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  return {
    url: urlOf(admin, name),
    async drop() {
      const c = new pg.Client(admin);
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

async function postgresAt(url: string, cleanup?: () => Promise<void>): Promise<OpenStores> {
  const handle = openPgDatabase(settings(url));
  await handle.ready();
  return {
    stores: createAllStores(handle as Database),
    reopen: () => postgresAt(url),
    rows: async <R,>(text: string, values: unknown[] = []) => (await handle.pool.query(text, values)).rows as R[],
    close: async () => {
      await handle.close();
      await cleanup?.();
    },
  };
}

export const postgres: Dialect = {
  name: 'postgres',
  async open() {
    const admin = inject('postgresUrl');
    if (!admin) throw new Error('no PostgreSQL cluster in this run (test/helpers/postgres-setup.ts)');
    const db = await freshPostgres(admin);
    return postgresAt(db.url, db.drop);
  },
};

/** The dialects this run has: PostgreSQL only when the run's cluster started (else a banner says it is skipped). */
export function dialects(): Dialect[] {
  if (inject('postgresUrl')) return [sqlite, postgres];
  console.error(banner(['PostgreSQL SKIPPED in this file: the run has no PostgreSQL cluster (see the banner above).']));
  return [sqlite];
}

export const DIALECTS: Dialect[] = dialects();
