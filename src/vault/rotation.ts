import { randomBytes } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock, IdFactory } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { KeyProvider } from './providers/interface.ts';
import type { FieldCursor, Rewrap, VaultStore } from './store.ts';
import { kekContext, type Keyring } from './keyring.ts';
import { unwrapDataKey, wrapDataKey } from './envelope.ts';

export interface RotateOptions {
  /** Rows re-wrapped per transaction (default 500). */
  batchSize?: number;
  /** Called after every batch with the number of rows re-wrapped so far. */
  onProgress?: (done: number) => void;
}

export interface RotationReport {
  /** The primary KEK when rotation finished: the new one, unless a concurrent rotation made a newer one. */
  primary: string;
  rewrapped: number;
  /** KEKs retired by this run: demoted and no longer referenced by any data key. They still decrypt. */
  retired: string[];
  /** Rows whose data key did not unwrap (altered in the database); left untouched, their KEK stays active. */
  unreadable: { secretId: string; field: string; kekId: string }[];
}

export interface RotationDeps {
  vstore: VaultStore;
  keyring: Keyring;
  provider: KeyProvider;
  clock: Clock;
  newId: IdFactory;
  log: Logger;
}

/**
 * Makes a new primary KEK, then re-wraps every data key under an older KEK to it, without
 * touching a ciphertext. Readers never wait: a row decrypts with whichever KEK its kek_id
 * names, before and after its re-wrap. See README.md for the guarantees under concurrency.
 */
export async function rotateKeys(deps: RotationDeps, opts: RotateOptions = {}): Promise<RotationReport> {
  const { vstore, keyring, provider, log } = deps;
  const batchSize = opts.batchSize ?? 500;
  if (!Number.isSafeInteger(batchSize) || batchSize < 1) throw new Error('batchSize must be a positive whole number');

  const kek = randomBytes(32);
  const kekId = deps.newId('kek');
  const wrapped = await provider.wrap(kek, kekContext(kekId));
  keyring.remember(kekId, kek);
  await vstore.promote(kekId, provider.name, wrapped, deps.clock.now());
  log.info('vault: new primary key-encryption key', { kek_id: kekId });

  let rewrapped = 0;
  // Keyed by the wrapped key too: a row replaced since (new wrapped key) is tried again.
  const unreadable = new Map<string, RotationReport['unreadable'][number]>();

  // Passes until one finds no readable row under an older KEK. A row sealed meanwhile by a
  // process that read the previous primary just before the switch is caught by a later pass.
  for (let pending = Infinity; pending > 0; ) {
    pending = 0;
    for (const oldKekId of await vstore.nonPrimaryIds()) {
      for (let after: FieldCursor | null = null; ; ) {
        const rows = await vstore.batch(oldKekId, after, batchSize);
        if (rows.length === 0) break;
        const last = rows[rows.length - 1]!;
        after = { secretId: last.secret_id, field: last.field };
        // Re-read per batch: a concurrent rotation may have made a newer primary; follow it.
        const targetId = await vstore.primaryId();
        if (!targetId) throw new Error('the vault lost its primary key during rotation');
        const target = await keyring.get(targetId);
        const oldKek = await keyring.get(oldKekId);
        const rewraps: Rewrap[] = [];
        for (const row of rows) {
          const tag = `${row.secret_id}\u0000${row.field}\u0000${row.wrapped_key}`;
          if (unreadable.has(tag)) continue;
          const owner = { userId: row.user_id, secretId: row.secret_id, field: row.field };
          let dek: Buffer;
          try {
            dek = unwrapDataKey(oldKek, oldKekId, owner, row.wrapped_key);
          } catch {
            unreadable.set(tag, { secretId: row.secret_id, field: row.field, kekId: oldKekId });
            log.warn('vault: a data key did not unwrap during rotation; row left as is', owner);
            continue;
          }
          pending++;
          rewraps.push({
            secretId: row.secret_id,
            field: row.field,
            oldKekId,
            oldWrappedKey: row.wrapped_key,
            newKekId: targetId,
            newWrappedKey: wrapDataKey(target, targetId, owner, dek),
          });
        }
        if (rewraps.length) {
          rewrapped += await vstore.applyRewraps(rewraps);
          opts.onProgress?.(rewrapped);
        }
        await nextTurn(); // keep a rotation inside the server from starving its requests
      }
    }
  }

  const retired = await vstore.retireUnused();
  const primary = (await vstore.primaryId()) ?? kekId;
  log.info('vault: rotation finished', { primary, rewrapped, retired, unreadable: unreadable.size });
  return { primary, rewrapped, retired, unreadable: [...unreadable.values()] };
}

