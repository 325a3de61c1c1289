/**
 * What the refresher needs from the vault. The vault implements it; the refresher never
 * touches ciphertext. Every method goes to the database: several processes share the
 * secrets, so a cached copy would hide a refresh done elsewhere.
 */

export type ClientAuthMethod = 'client_secret_post' | 'client_secret_basic';

export interface OAuth2Grant {
  secretId: string;
  userId: string;
  tokenUrl: string;
  clientId: string;
  /** Empty for a public client: then only client_id is sent. */
  clientSecret: string;
  accessToken: string;
  refreshToken: string;
  /** Milliseconds since the epoch; null: unknown, the token is used until a 401. */
  expiresAt: number | null;
  status: 'active' | 'needs_reauthorization';
  version: number;
  /** How the client authenticates at the token endpoint; absent means client_secret_post. */
  clientAuthMethod?: ClientAuthMethod;
}

export interface RefreshedTokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: number | null;
}

export interface TokenStore {
  /** Fresh from the database, decrypted; null when the secret does not exist (any more). */
  read(secretId: string): Promise<OAuth2Grant | null>;
  /**
   * Encrypts, bumps `version`, sets `refreshed_at`; given `seenVersion` (the grant's version the
   * exchange started from), only while the secret is still at it: a grant imported meanwhile wins.
   */
  save(secretId: string, tokens: RefreshedTokens, seenVersion?: number): Promise<void>;
  /** Given `seenVersion`, only while the secret is still at it: a grant imported meanwhile stays active. */
  markNeedsReauthorization(secretId: string, seenVersion?: number): Promise<void>;
}
