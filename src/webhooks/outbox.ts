/** The outbox's domain face; its SQL lives in ./outbox-store.ts. */
export {
  createOutboxStore,
  enqueueWebhook,
  listDeliveries,
  listMessages,
  type OutboxStore,
  type EnqueueWebhookInput,
  type AttemptResult,
  type AttemptRecord,
  type DeliveryView,
  type DeliveryAttemptView,
  type ListMessagesInput,
} from './outbox-store.ts';
