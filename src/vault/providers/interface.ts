/**
 * Wraps and unwraps the vault's key-encryption keys (KEKs). The local provider derives its
 * wrapping key from the master key; a cloud KMS would keep its key outside this process.
 * See ./README.md for what a provider must guarantee.
 */
export interface KeyProvider {
  /** Stored in vault_keys.provider, so a KEK is always unwrapped by the provider that wrapped it. */
  readonly name: string;
  /** `context` is associated data (e.g. `mimic/kek/<kekId>`): unwrap must fail under any other context. */
  wrap(kek: Buffer, context: string): Promise<string>;
  unwrap(wrapped: string, context: string): Promise<Buffer>;
}
