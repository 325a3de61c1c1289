import type { KeyProvider } from './providers/interface.ts';
import type { VaultStore } from './store.ts';
import { VaultKeyError } from './errors.ts';

/** The associated data a KEK is wrapped with: a wrapped KEK moved to another id does not unwrap. */
export const kekContext = (kekId: string): string => `mimic/kek/${kekId}`;

/**
 * Plain KEKs, unwrapped once and kept in memory. A KEK this process has not seen (created by
 * a rotation in another process) is loaded from vault_keys on first use; concurrent callers
 * share one unwrap.
 */
export interface Keyring {
  get(kekId: string): Promise<Buffer>;
  /** A KEK this process just created and wrapped. */
  remember(kekId: string, kek: Buffer): void;
  /** Unwraps every stored KEK, so a wrong key refuses startup instead of failing requests. */
  verifyAll(): Promise<void>;
}

export function createKeyring(vstore: VaultStore, provider: KeyProvider): Keyring {
  const plain = new Map<string, Buffer>();
  const loading = new Map<string, Promise<Buffer>>();

  async function unwrap(kekId: string): Promise<Buffer> {
    const row = await vstore.key(kekId);
    if (!row) throw new Error(`the vault has no key-encryption key ${kekId}`);
    if (row.provider !== provider.name) {
      throw new VaultKeyError(
        `The vault's key-encryption key ${kekId} was wrapped by key provider '${row.provider}', but this service uses '${provider.name}'. ` +
          `Start it with MIMIC_KEY_PROVIDER=${row.provider} and that provider's settings.`,
      );
    }
    try {
      return await provider.unwrap(row.wrapped, kekContext(kekId));
    } catch (cause) {
      // The provider's own error may quote its request; the operator gets a message we wrote.
      throw new VaultKeyError(
        provider.name === 'local'
          ? `The master key cannot decrypt the vault's key-encryption key ${kekId} (wrapped by provider 'local'). ` +
              'Start the service with the MIMIC_MASTER_KEY (or MIMIC_MASTER_KEY_FILE) this data directory was created with.'
          : `Key provider '${provider.name}' cannot decrypt the vault's key-encryption key ${kekId}. ` +
              "Check that the provider's key and credentials are the ones this data directory was created with.",
        { cause },
      );
    }
  }

  const keyring: Keyring = {
    get(kekId) {
      const cached = plain.get(kekId);
      if (cached) return Promise.resolve(cached);
      let pending = loading.get(kekId);
      if (!pending) {
        pending = unwrap(kekId).then(
          (kek) => {
            plain.set(kekId, kek);
            loading.delete(kekId);
            return kek;
          },
          (e: unknown) => {
            loading.delete(kekId); // a later call tries again
            throw e;
          },
        );
        loading.set(kekId, pending);
      }
      return pending;
    },
    remember(kekId, kek) {
      plain.set(kekId, kek);
    },
    async verifyAll() {
      for (const row of await vstore.keys()) await keyring.get(row.id);
    },
  };
  return keyring;
}
