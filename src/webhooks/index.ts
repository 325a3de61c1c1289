export { signPayload, signatureHeader, generateSigningSecret } from './signing.ts';
export { createWebhookSecrets, ROTATION_OVERLAP_MS, type WebhookSecrets, type WebhookSecretsDeps, type SigningSecretView } from './secrets.ts';
export {
  enqueueWebhook,
  claimDueMessages,
  recordAttempt,
  dropMessage,
  listDeliveries,
  listMessages,
  type EnqueueWebhookInput,
  type DeliveryView,
  type DeliveryAttemptView,
  type AttemptResult,
} from './outbox.ts';
export { createWebhookDispatcher, retryAfterMs, USER_AGENT, type WebhookDispatcher, type WebhookDispatcherDeps, type WebhookBodyBuilder } from './dispatcher.ts';
export type { WebhookDb } from './db.ts';
