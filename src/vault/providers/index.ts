import type { KeyProvider } from './interface.ts';
import { createLocalKeyProvider } from './local.ts';

export type { KeyProvider } from './interface.ts';
export { createLocalKeyProvider } from './local.ts';

// A Map, not an object literal: a name like "toString" must not find Object.prototype's.
const PROVIDERS = new Map<string, (masterKey: Buffer) => KeyProvider>([['local', createLocalKeyProvider]]);

export const KEY_PROVIDER_NAMES: readonly string[] = [...PROVIDERS.keys()];

/** The provider named by configuration (MIMIC_KEY_PROVIDER); an unknown name fails loudly at startup. */
export function createKeyProvider(name: string, masterKey: Buffer): KeyProvider {
  const make = PROVIDERS.get(name);
  if (!make) throw new Error(`unknown key provider "${name}" (known: ${KEY_PROVIDER_NAMES.join(', ')})`);
  return make(masterKey);
}
