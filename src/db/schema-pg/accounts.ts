import { pgTable, text, bigint, index, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './core.ts';

/** Times are integer milliseconds since the epoch. src/accounts/README.md states the invariants. */

/** A person who signs in to the studio: one per user; the password hash is null while invited. */
export const accounts = pgTable(
  'accounts',
  {
    userId: text('user_id')
      .primaryKey()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** Trimmed, NFKC-normalised, lower-cased. */
    email: text('email').notNull(),
    /** argon2id PHC string (peppered); null until an invite is accepted. */
    passwordHash: text('password_hash'),
    passwordChangedAt: bigint('password_changed_at', { mode: 'number' }),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
  },
  (t) => [uniqueIndex('accounts_email_idx').on(t.email)],
);

/** A studio sign-in. The cookie's token is never stored: only its HMAC. */
export const studioSessions = pgTable(
  'studio_sessions',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    /** Touched at most once a minute. */
    lastSeenAt: bigint('last_seen_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    revokedAt: bigint('revoked_at', { mode: 'number' }),
    userAgent: text('user_agent'),
    address: text('address'),
  },
  (t) => [uniqueIndex('studio_sessions_token_idx').on(t.tokenHash), index('studio_sessions_user_idx').on(t.userId, t.createdAt)],
);

/** One-time links an operator hands out: an invite (set the first password) or a reset. Only the HMAC of the token is stored. */
export const accountTokens = pgTable(
  'account_tokens',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** invite | reset */
    kind: text('kind').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: bigint('created_at', { mode: 'number' }).notNull(),
    expiresAt: bigint('expires_at', { mode: 'number' }).notNull(),
    usedAt: bigint('used_at', { mode: 'number' }),
  },
  (t) => [uniqueIndex('account_tokens_token_idx').on(t.tokenHash), index('account_tokens_user_idx').on(t.userId)],
);

/** The keys bearer tokens are signed with (ES256); the private half is sealed under a master-derived key. */
export const signingKeys = pgTable('signing_keys', {
  kid: text('kid').primaryKey(),
  alg: text('alg').notNull(),
  /** JSON Web Key, public members only. */
  publicJwk: text('public_jwk').notNull(),
  /** JSON of the sealed private JWK (keys.ts seal). */
  privateJwk: text('private_jwk').notNull(),
  createdAt: bigint('created_at', { mode: 'number' }).notNull(),
});

/** Failed sign-ins per bucket (`acct:<sha256(email)>` or `addr:<address>`) in a fixed window. */
export const signInAttempts = pgTable('sign_in_attempts', {
  bucket: text('bucket').primaryKey(),
  failures: bigint('failures', { mode: 'number' }).notNull(),
  windowStartedAt: bigint('window_started_at', { mode: 'number' }).notNull(),
});
