export * from './schema-pg/core.ts';
export * from './schema-pg/webhooks.ts';
export * from './schema-pg/vault.ts';
export * from './schema-pg/compute.ts';
export * from './schema-pg/agents.ts';
export * from './schema-pg/accounts.ts';
export * from './schema-pg/oauth.ts';
export * from './schema-pg/streams.ts';
