import { sqliteTable, text, integer, index, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { users } from './core.ts';

/** Times are integer milliseconds since the epoch. src/accounts/README.md states the invariants. */

/** A person who signs in to the studio: one per user; the password hash is null while invited. */
export const accounts = sqliteTable(
  'accounts',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Trimmed, NFKC-normalised, lower-cased. */
    email: text('email').notNull(),
    /** argon2id PHC string (peppered); null until an invite is accepted. */
    passwordHash: text('password_hash'),
    passwordChangedAt: integer('password_changed_at'),
    createdAt: integer('created_at').notNull(),
  },
  (t) => [uniqueIndex('accounts_email_idx').on(t.email)],
);

/** A studio sign-in. The cookie's token is never stored: only its HMAC. */
export const studioSessions = sqliteTable(
  'studio_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    /** Touched at most once a minute. */
    lastSeenAt: integer('last_seen_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    revokedAt: integer('revoked_at'),
    userAgent: text('user_agent'),
    address: text('address'),
  },
  (t) => [uniqueIndex('studio_sessions_token_idx').on(t.tokenHash), index('studio_sessions_user_idx').on(t.userId, t.createdAt)],
);

/** One-time links an operator hands out: an invite (set the first password) or a reset. Only the HMAC of the token is stored. */
export const accountTokens = sqliteTable(
  'account_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** invite | reset */
    kind: text('kind').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
  },
  (t) => [uniqueIndex('account_tokens_token_idx').on(t.tokenHash), index('account_tokens_user_idx').on(t.userId)],
);

/** The keys bearer tokens are signed with (ES256); the private half is sealed under a master-derived key. */
export const signingKeys = sqliteTable('signing_keys', {
  kid: text('kid').primaryKey(),
  alg: text('alg').notNull(),
  /** JSON Web Key, public members only. */
  publicJwk: text('public_jwk').notNull(),
  /** JSON of the sealed private JWK (keys.ts seal). */
  privateJwk: text('private_jwk').notNull(),
  createdAt: integer('created_at').notNull(),
});

/** Failed sign-ins per bucket (`acct:<sha256(email)>` or `addr:<address>`) in a fixed window. */
export const signInAttempts = sqliteTable('sign_in_attempts', {
  bucket: text('bucket').primaryKey(),
  failures: integer('failures').notNull(),
  windowStartedAt: integer('window_started_at').notNull(),
});
