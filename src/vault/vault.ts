import { randomBytes } from 'node:crypto';
import { isoTime, type Clock, type IdFactory } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { KeyProvider } from './providers/interface.ts';
import type { VaultStore } from './store.ts';
import { createKeyring, kekContext } from './keyring.ts';
import { openValue, sealValue } from './envelope.ts';
import { checkMasterKey } from './key-check.ts';
import { rotateKeys, type RotateOptions, type RotationReport } from './rotation.ts';
import { VaultDecryptError } from './errors.ts';

/** One encrypted field as stored in secret_fields (see envelope.ts for the formats). */
export interface SealedValue {
  field: string;
  kekId: string;
  wrappedKey: string;
  ciphertext: string;
}

export interface VaultKeyStatus {
  id: string;
  provider: string;
  status: 'primary' | 'active' | 'retired';
  created_at: string;
  demoted_at: string | null;
  /** secret_fields rows whose data key this KEK wraps. */
  data_keys: number;
}

export interface VaultStatus {
  primary: string | null;
  keys: VaultKeyStatus[];
}

export interface Vault {
  /** Resolves once the master key and every KEK check out; rejects with VaultKeyError otherwise. */
  ready(): Promise<void>;
  seal(userId: string, secretId: string, values: Record<string, string>): Promise<SealedValue[]>;
  /** Throws VaultDecryptError for a row that was altered or copied from another user, secret or field. */
  open(userId: string, secretId: string, rows: SealedValue[]): Promise<Record<string, string>>;
  rotate(opts?: RotateOptions): Promise<RotationReport>;
  status(): Promise<VaultStatus>;
}

export interface VaultDeps {
  store: VaultStore;
  provider: KeyProvider;
  masterKey: Buffer;
  clock: Clock;
  newId: IdFactory;
  log: Logger;
  /** Resolves once the database's tables exist (PostgreSQL migrates after the process has started); the vault's first look waits for it. */
  databaseReady?: () => Promise<void>;
}

/**
 * The vault of one process. Several processes may hold one on the same database: each reads
 * the primary KEK from vault_keys on every seal, and loads a KEK it has not seen on first use.
 */
export function createVault(deps: VaultDeps): Vault {
  const { store: vstore, provider, clock, log } = deps;
  const keyring = createKeyring(vstore, provider);

  async function initialise(): Promise<void> {
    await deps.databaseReady?.();
    await checkMasterKey(vstore, deps.masterKey);
    await keyring.verifyAll();
    if (await vstore.primaryId()) return;
    const kek = randomBytes(32);
    const id = deps.newId('kek');
    const wrapped = await provider.wrap(kek, kekContext(id));
    // Another process starting at the same moment may have inserted its own first key: then ours is dropped.
    if (await vstore.insertFirstPrimary(id, provider.name, wrapped, clock.now())) {
      keyring.remember(id, kek);
      log.info('vault: created the first key-encryption key', { kek_id: id, provider: provider.name });
    }
  }

  const init = initialise();
  init.catch(() => {}); // reported by ready() and by every method, not as an unhandled rejection

  return {
    ready: () => init,

    async seal(userId, secretId, values) {
      await init;
      const kekId = await vstore.primaryId();
      if (!kekId) throw new Error('the vault has no primary key-encryption key');
      const kek = await keyring.get(kekId);
      return Object.entries(values).map(([field, value]) => {
        if (typeof value !== 'string') throw new TypeError(`value of field "${field}" must be a string`);
        return { field, kekId, ...sealValue(kek, kekId, { userId, secretId, field }, value) };
      });
    },

    async open(userId, secretId, rows) {
      await init;
      const entries: [string, string][] = [];
      for (const row of rows) {
        const where = `field "${row.field}" of secret ${secretId}`;
        let kek: Buffer;
        try {
          kek = await keyring.get(row.kekId);
        } catch (cause) {
          throw new VaultDecryptError(`cannot decrypt ${where}: its key-encryption key ${row.kekId} is not available`, { cause });
        }
        try {
          entries.push([row.field, openValue(kek, row.kekId, { userId, secretId, field: row.field }, row.wrappedKey, row.ciphertext)]);
        } catch {
          // No cause attached: nothing from the failed decryption should travel further.
          throw new VaultDecryptError(`cannot decrypt ${where}: the stored value was altered or belongs to another row`);
        }
      }
      return Object.fromEntries(entries); // defines own properties even for a field named "__proto__"
    },

    async rotate(opts) {
      await init;
      return rotateKeys({ vstore, keyring, provider, clock, newId: deps.newId, log }, opts);
    },

    async status() {
      await init;
      const counts = await vstore.dataKeyCounts();
      return {
        primary: (await vstore.primaryId()) ?? null,
        keys: (await vstore.keys()).map((k) => ({
          id: k.id,
          provider: k.provider,
          status: k.status,
          created_at: isoTime(k.created_at),
          demoted_at: k.demoted_at === null ? null : isoTime(k.demoted_at),
          data_keys: counts.get(k.id) ?? 0,
        })),
      };
    },
  };
}
