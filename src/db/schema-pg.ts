export * from './schema-pg/core.ts';
export * from './schema-pg/webhooks.ts';
export * from './schema-pg/vault.ts';
export * from './schema-pg/compute.ts';
export * from './schema-pg/agents.ts';
export * from './schema-pg/accounts.ts';
export * from './schema-pg/oauth.ts';
export * from './schema-pg/streams.ts';
export * from './schema-pg/rate-limits.ts';

/** Tables only PostgreSQL has (what SQLite keeps in process memory instead): not in the parity check, not copied by `mimic db copy`. */
export const PG_ONLY_TABLES: readonly string[] = ['rate_limits'];
