import type { Config } from '../config.ts';
import { closeDatabase, openReadyDatabase, type Database } from '../db/database.ts';
import { systemClock, randomId } from '../clock.ts';
import { createLogger } from '../log.ts';
import { createKeyProvider } from './providers/index.ts';
import { createVault, type Vault } from './vault.ts';
import { vaultStoreOn } from './store-pg.ts';
import { VaultKeyError } from './errors.ts';

/** What opening the vault for an operator command needs of the command's context (src/cli/command.ts). */
export interface VaultCommandContext {
  config: Pick<Config, 'databaseFile' | 'database' | 'keyProvider' | 'masterKey'>;
  /** stderr: a refused key is reported here. */
  err: (line: string) => void;
}

/**
 * Runs `fn` on a ready vault over the configured database, SQLite or PostgreSQL (any command that seals or opens
 * uses it: `vault ...`, `secrets ...`). A key the vault refuses is reported as the operator
 * message, exit code 1.
 */
export async function withVault(ctx: VaultCommandContext, fn: (vault: Vault, database: Database) => Promise<number>): Promise<number> {
  const database = await openReadyDatabase(ctx.config);
  try {
    const vault = createVault({
      store: vaultStoreOn(database),
      provider: createKeyProvider(ctx.config.keyProvider, ctx.config.masterKey),
      masterKey: ctx.config.masterKey,
      clock: systemClock,
      newId: randomId,
      log: createLogger(ctx.err), // stdout carries only the command's JSON result
    });
    await vault.ready();
    return await fn(vault, database);
  } catch (e) {
    if (!(e instanceof VaultKeyError)) throw e;
    ctx.err(e.message);
    return 1;
  } finally {
    await closeDatabase(database);
  }
}
