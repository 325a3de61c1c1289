/**
 * The vault refuses to start: the configured master key (or key provider) cannot decrypt
 * what this database holds. The message is written for the operator and shown as is.
 */
export class VaultKeyError extends Error {
  override name = 'VaultKeyError';
}

/**
 * A stored value did not decrypt: altered, or copied from another row. The message names
 * the secret and field only; it never carries key material or plaintext.
 */
export class VaultDecryptError extends Error {
  override name = 'VaultDecryptError';
}
