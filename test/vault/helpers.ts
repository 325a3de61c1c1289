import { mkdtempSync, rmSync } from 'node:fs';
import { afterEach, beforeEach } from 'vitest';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openStore, type Store } from '../../src/db/client.ts';
import { randomId, systemClock } from '../../src/clock.ts';
import { silentLogger } from '../../src/log.ts';
import type { Config } from '../../src/config.ts';
import type { CommandContext } from '../../src/cli/command.ts';
import { createLocalKeyProvider, createVault, type SealedValue, type Vault } from '../../src/vault/index.ts';
import { createSqliteVaultStore } from '../../src/vault/store.ts';

export const KEY_A = Buffer.alloc(32, 0xa1);
export const KEY_B = Buffer.alloc(32, 0xb2);

/** A fresh data directory; `cleanup` removes it. */
export function tempDataDir(): { dir: string; file: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mimic-vault-'));
  return { dir, file: join(dir, 'mimic.db'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A fresh data directory per test, and `open()` for connections to its database (each one
 * like another process's); all are closed and the directory removed after each test.
 */
export function useTempStores(): { open: () => Store; stores: readonly Store[]; data: () => ReturnType<typeof tempDataDir> } {
  let data: ReturnType<typeof tempDataDir>;
  const stores: Store[] = [];
  beforeEach(() => {
    data = tempDataDir();
  });
  afterEach(() => {
    for (const s of stores.splice(0)) s.close();
    data.cleanup();
  });
  return {
    open: () => {
      const s = openStore(data.file);
      stores.push(s);
      return s;
    },
    stores,
    data: () => data,
  };
}

export function makeVault(store: Store, masterKey = KEY_A): Vault {
  return createVault({ store: createSqliteVaultStore(store), provider: createLocalKeyProvider(masterKey), masterKey, clock: systemClock, newId: randomId, log: silentLogger });
}

export function addUser(store: Store, id: string): string {
  store.sqlite.prepare(`INSERT INTO users (id, name, credits, permissions, created_at) VALUES (?, ?, 0, '[]', ?)`).run(id, id, Date.now());
  return id;
}

export function addSecret(store: Store, userId: string, id: string): string {
  store.sqlite
    .prepare(`INSERT INTO secrets (id, user_id, provider, type, status, created_at, updated_at) VALUES (?, ?, 'test', 'bearer', 'active', ?, ?)`)
    .run(id, userId, Date.now(), Date.now());
  return id;
}

/** Writes sealed fields the way a PUT would: replacing the row's key and ciphertext together. */
export function writeFields(store: Store, secretId: string, sealed: SealedValue[]): void {
  const upsert = store.sqlite.prepare(
    `INSERT INTO secret_fields (secret_id, field, kek_id, wrapped_key, ciphertext) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (secret_id, field) DO UPDATE SET kek_id = excluded.kek_id, wrapped_key = excluded.wrapped_key, ciphertext = excluded.ciphertext`,
  );
  store.sqlite.transaction(() => {
    for (const s of sealed) upsert.run(secretId, s.field, s.kekId, s.wrappedKey, s.ciphertext);
  })();
}

export function readFields(store: Store, secretId: string): SealedValue[] {
  return store.sqlite
    .prepare<[string], SealedValue>(
      `SELECT field, kek_id AS kekId, wrapped_key AS wrappedKey, ciphertext FROM secret_fields WHERE secret_id = ? ORDER BY field`,
    )
    .all(secretId);
}

export function kekIdsInUse(store: Store): string[] {
  return store.sqlite
    .prepare<[], { kek_id: string }>('SELECT DISTINCT kek_id FROM secret_fields ORDER BY kek_id')
    .all()
    .map((r) => r.kek_id);
}

/** Flips one bit inside a base64url piece of a `g1.iv.tag.ct` text (decoded, so never just a padding bit). */
export function tamper(sealed: string, piece: 1 | 2 | 3): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[piece]!, 'base64url');
  bytes[0] = bytes[0]! ^ 0x01;
  parts[piece] = bytes.toString('base64url');
  return parts.join('.');
}

export function cliContext(file: string, masterKey: Buffer) {
  const out: string[] = [];
  const err: string[] = [];
  const ctx: CommandContext = {
    config: { databaseFile: file, masterKey, keyProvider: 'local' } as unknown as Config, // the vault commands read only these
    settings: { dataDir: dirname(file), databaseFile: file, database: null, env: {} },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  };
  return { ctx, out, err };
}
