import { createHmac } from 'node:crypto';
import type { VaultStore } from './store.ts';
import { deriveKey } from '../keys.ts';
import { VaultKeyError } from './errors.ts';

const CHECK_NAME = 'master_key_check';
const CHECK_LABEL = 'mimic/master-key-check/v1';

/** HMAC of a fixed label: shows which master key this is without revealing anything about it. */
export function masterKeyCheckValue(masterKey: Buffer): string {
  return createHmac('sha256', deriveKey(masterKey, 'key-check')).update(CHECK_LABEL).digest('base64url');
}

/**
 * Records the master key's check value on first use and refuses any other key afterwards.
 * It guards more than the vault: API-key hashes and sealed webhook secrets derive from the
 * master key too, and a wrong key would otherwise only show as every request failing.
 */
export async function checkMasterKey(vstore: Pick<VaultStore, 'recordMeta'>, masterKey: Buffer): Promise<void> {
  const expected = masterKeyCheckValue(masterKey);
  if ((await vstore.recordMeta(CHECK_NAME, expected)) !== expected) {
    throw new VaultKeyError(
      'The master key is not the one this data directory was created with (its key check value in vault_meta differs). ' +
        'Start the service with the MIMIC_MASTER_KEY (or MIMIC_MASTER_KEY_FILE) this data directory was created with.',
    );
  }
}
