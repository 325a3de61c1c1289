export { signPayload, signatureHeader, generateSigningSecret } from './signing.ts';
export { createWebhookSecrets, ROTATION_OVERLAP_MS, type WebhookSecrets, type WebhookSecretsDeps, type SigningSecretView } from './secrets.ts';
export {
  createOutboxStore,
  enqueueWebhook,
  listDeliveries,
  listMessages,
  type EnqueueWebhookInput,
  type DeliveryView,
  type DeliveryAttemptView,
  type AttemptResult,
  type OutboxStore,
} from './outbox.ts';
export { createWebhookDispatcher, retryAfterMs, USER_AGENT, type WebhookDispatcher, type WebhookDispatcherDeps, type WebhookBodies, type WebhookBodyBuilder } from './dispatcher.ts';
export type { WebhookDb } from './db.ts';
