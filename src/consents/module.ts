import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { consentSchemas } from './schemas.ts';
import { consents, presentConsent } from './kind.ts';
import type { ConsentDeps } from './deps.ts';
import { consentRoutes } from './routes.ts';
import { consentSettings } from './settings.ts';
import { verifyConsent } from './verify.ts';
import { consentsForAvatars } from './access.ts';
import { CONSENT_COMMANDS } from './cli.ts';
import { CONSENT_ERRORS } from './errors.ts';
import { CONSENTS } from './contract.ts';

/**
 * Consents (docs/consents.md): a statement with a passcode, the video of one person reading
 * it, verified step by step (`consent.verify`), with an operator review queue for languages
 * no recogniser here checks (the platform's face analyser and speech recognisers). Provides
 * the avatars capability with what it checks of a consent (`CONSENTS`).
 */
export const consentsModule = defineModule({
  name: 'consents',
  config: consentSettings,
  commands: CONSENT_COMMANDS,
  errors: CONSENT_ERRORS,
  provides: [CONSENTS],
  create(p, settings) {
    const lifecycle = consents.on(p, { present: (c) => presentConsent(c, p.media, p.clock.now()) });
    const { faces, recognisers } = p;
    if (!recognisers.some((r) => r.languages.includes('english'))) {
      p.log.warn('no speech recogniser for English consents: they wait for an operator review (install with: node scripts/ensure-pocketsphinx.mjs)');
    }
    const deps: ConsentDeps = {
      config: p.config, settings, lifecycle, clock: p.clock, newId: p.newId, schemas: consentSchemas(p.config.storageScheme),
      queue: p.queue, media: p.media, client: p.client, log: p.log, faces, recognisers,
    };
    return {
      deps,
      routes: consentRoutes(deps),
      jobs: [lifecycle.job((job, ctx) => verifyConsent(deps, job, ctx))],
      resources: [lifecycle],
      provides: [provide(CONSENTS, consentsForAvatars(lifecycle, p.media))],
    };
  },
});
