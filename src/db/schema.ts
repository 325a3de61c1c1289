export * from './schema/core.ts';
export * from './schema/webhooks.ts';
export * from './schema/vault.ts';
export * from './schema/compute.ts';
export * from './schema/agents.ts';
export * from './schema/accounts.ts';
export * from './schema/oauth.ts';
export * from './schema/streams.ts';
