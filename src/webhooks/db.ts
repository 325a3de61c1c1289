/** The drizzle database type the webhook stores are built on (defined with them, in outbox-store.ts). */
export type { WebhookDb } from './outbox-store.ts';
