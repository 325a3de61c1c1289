export { createVault, type Vault, type VaultDeps, type SealedValue, type VaultStatus, type VaultKeyStatus } from './vault.ts';
export type { RotateOptions, RotationReport } from './rotation.ts';
export { VaultKeyError, VaultDecryptError } from './errors.ts';
export { checkMasterKey } from './key-check.ts';
export { createKeyProvider, createLocalKeyProvider, KEY_PROVIDER_NAMES, type KeyProvider } from './providers/index.ts';
