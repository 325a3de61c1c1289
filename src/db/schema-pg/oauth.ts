import { pgTable, text, bigint, index, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './core.ts';

/**
 * One attempt to connect an account over OAuth 2.0 (authorization code with PKCE): created
 * when the authorization URL is handed out, claimed once by the callback. The invariants live
 * in src/secrets/oauth2-connect/README.md. Times are integer milliseconds since the epoch.
 */
export const oauthConnections = pgTable(
  'oauth_connections',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** HMAC-SHA256 of the `state` sent to the provider (never the state itself): the callback finds its attempt by it. */
    stateHash: text('state_hash').notNull(),
    status: text('status', { enum: ['pending', 'exchanging', 'connected', 'denied', 'failed', 'expired'] }).notNull(),
    /** The label the resulting secret gets. */
    provider: text('provider').notNull(),
    /** The discovered issuer (OpenID Connect / RFC 8414), or null when the endpoints were given. */
    issuer: text('issuer'),
    /** The discovered server metadata (JSON), for the callback's checks (issuer in the response, ID token algorithms); null without an issuer. */
    metadata: text('metadata'),
    authorizationUrl: text('authorization_url').notNull(),
    tokenUrl: text('token_url').notNull(),
    clientId: text('client_id').notNull(),
    /** JSON array of the scopes asked for. */
    scopes: text('scopes').notNull(),
    authMethod: text('auth_method', { enum: ['client_secret_post', 'client_secret_basic', 'none'] }).notNull(),
    /** JSON array of SealedValue (code_verifier, nonce, client_secret), sealed by the vault for (user, connection id); emptied when the attempt ends. */
    sealed: text('sealed').notNull(),
    /** Reconnect: the existing oauth2 secret whose grant the callback replaces. */
    targetSecretId: text('target_secret_id'),
    /** The secret the callback created or replaced. */
    resultSecretId: text('result_secret_id'),
    /** Why the attempt ended without a secret: denied, provider_error, no_refresh_token, ... */
    errorCode: text('error_code'),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    finishedAt: bigint('finished_at', { mode: 'number' }),
  },
  (t) => [uniqueIndex('oauth_connections_state_idx').on(t.stateHash), index('oauth_connections_user_idx').on(t.userId, t.createdAt)],
);

export type OAuthConnectionRow = typeof oauthConnections.$inferSelect;
