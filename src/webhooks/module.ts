import { defineModule } from '../platform/module.ts';
import { webhookBodyBuilders } from '../resources/lifecycle.ts';
import { createWebhookDispatcher, type WebhookBodies } from './dispatcher.ts';
import { webhookRoutes } from './routes.ts';
import { createWebhookSecrets } from './secrets.ts';
import { outboxStoreOn } from './outbox-store-pg.ts';
import { webhookSecretStoreOnDatabase } from './secrets-store-pg.ts';

/**
 * The owner's view of webhooks (the signing secret, its rotation, and the delivery log), and
 * the dispatcher that delivers every resource kind's final states from the outbox: started
 * with the modules (unless MIMIC_WEBHOOKS=false), stopped after the job runner at shutdown.
 */
export const webhooksModule = defineModule({
  name: 'webhooks',
  create: (p, _settings, services) => {
    const { config } = p;
    // The signing keys, built from the store (no state: another process's reads the same rows).
    const outbox = outboxStoreOn(p.store, p.newId);
    const secrets = createWebhookSecrets({ store: webhookSecretStoreOnDatabase(p.store), clock: p.clock, masterKey: config.masterKey });
    let bodies: WebhookBodies | undefined;
    const dispatcher = createWebhookDispatcher({
      store: p.store,
      outbox,
      client: p.client,
      clock: p.clock,
      secrets,
      schedule: config.webhooks.retryScheduleMs,
      timeoutMs: config.webhooks.timeoutMs,
      pollMs: config.webhooks.pollMs,
      log: p.log,
      // `animation.done` asks the `animation` kind for its body. The kinds are every module's,
      // known once all are built: read at the first message, not now.
      get bodies() {
        return (bodies ??= webhookBodyBuilders(services.resources()));
      },
    });
    return {
      routes: webhookRoutes({ outbox, secrets }),
      /** Delivers the outbox's due messages (tests run one poll with `runOnce`). */
      dispatcher,
      start() {
        if (config.webhooks.enabled) dispatcher.start();
      },
      drain: () => dispatcher.stop(),
    };
  },
});
