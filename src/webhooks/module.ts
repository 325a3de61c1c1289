import { defineModule } from '../platform/module.ts';
import { webhookRoutes } from './routes.ts';

/** The owner's view of webhooks: the signing secret, its rotation, and the delivery log. */
export const webhooksModule = defineModule({
  name: 'webhooks',
  create: (p) => ({ routes: webhookRoutes({ outbox: p.stores.outbox, secrets: p.webhookSecrets }) }),
});
