import { deriveKey, open, seal } from '../../keys.ts';
import type { KeyProvider } from './interface.ts';

/**
 * Wraps KEKs with AES-256-GCM under a key derived from the master key (purpose 'vault-kek'),
 * the context as associated data. The wrapped text is keys.ts's `g1.<iv>.<tag>.<ct>` whose
 * plaintext is the KEK in base64url (keys.ts seals text, not bytes).
 */
export function createLocalKeyProvider(masterKey: Buffer): KeyProvider {
  const wrappingKey = deriveKey(masterKey, 'vault-kek');
  return {
    name: 'local',
    async wrap(kek, context) {
      return seal(wrappingKey, kek.toString('base64url'), context);
    },
    async unwrap(wrapped, context) {
      const kek = Buffer.from(open(wrappingKey, wrapped, context), 'base64url');
      if (kek.length !== 32) throw new Error('unwrapped key has the wrong length');
      return kek;
    },
  };
}
