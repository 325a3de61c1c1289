import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/db/client.ts';
import { createAllStores, type AllStores } from '../helpers/stores.ts';

/**
 * A database the store contract suite runs against. A second SQL dialect adds one entry
 * here (a throwaway server and its factory); the contracts under contracts/ stay unchanged.
 */
export interface Dialect {
  name: string;
  /** A fresh, migrated, empty database and its stores. */
  open(): Promise<OpenStores>;
}

export interface OpenStores {
  stores: AllStores;
  /** A second, independent connection to the same database (another process's view). */
  reopen(): Promise<OpenStores>;
  close(): Promise<void>;
}

function sqliteAt(file: string, cleanup?: () => void): OpenStores {
  const handle = openStore(file);
  return {
    stores: createAllStores(handle),
    reopen: async () => sqliteAt(file),
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

export const DIALECTS: Dialect[] = [sqlite];
