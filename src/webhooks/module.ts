import { defineModule } from '../platform/module.ts';
import { webhookRoutes } from './routes.ts';
import { createWebhookSecrets } from './secrets.ts';

/** The owner's view of webhooks: the signing secret, its rotation, and the delivery log. */
export const webhooksModule = defineModule({
  name: 'webhooks',
  create: (p) => {
    // The signing keys, built here from the store (no state: the dispatcher's own reads the same rows).
    const secrets = createWebhookSecrets({ store: p.stores.webhookSecrets, clock: p.clock, masterKey: p.config.masterKey });
    return { routes: webhookRoutes({ outbox: p.stores.outbox, secrets }) };
  },
});
