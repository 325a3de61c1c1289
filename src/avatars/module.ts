import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { CONSENTS } from '../consents/contract.ts';
import { VOICES } from '../voices/contract.ts';
import { USER_PRESENTERS } from './contract.ts';
import { defaultBackoff } from '../jobs/catalogue.ts';
import { avatarSchemas } from '../schemas/avatars.ts';
import { avatarLifecycle, AVATAR_JOB } from './kind.ts';
import type { AvatarDeps } from './deps.ts';
import { avatarRoutes } from './routes.ts';
import { avatarSettings } from './settings.ts';
import { createAvatarJob } from './train.ts';
import { removeAvatar } from './create.ts';
import { avatarPresenters } from './presenters.ts';
import { AVATAR_COMMANDS } from './cli.ts';

/**
 * Premium-plus avatars (docs/avatars.md): POST /clips/avatars with footage and a verified
 * consent; the footage is checked (`validating`), trained into a presenter by a compute task
 * (`started`), and the presenter joins the user's presenters (`USER_PRESENTERS`, which the
 * presenter catalogue lists). It needs consents (`CONSENTS`: it checks them).
 */
export const avatarsModule = defineModule({
  name: 'avatars',
  config: avatarSettings,
  commands: AVATAR_COMMANDS,
  needs: [CONSENTS],
  uses: [VOICES],
  provides: [USER_PRESENTERS],
  create(p, settings, services) {
    const lifecycle = avatarLifecycle(p.stores.resources, p.clock, p.media, settings.credits);
    const deps: AvatarDeps = {
      config: p.config, settings, lifecycle, clock: p.clock, newId: p.newId, schemas: avatarSchemas(p.config.storageScheme),
      queue: p.queue, media: p.media, client: p.client, log: p.log, backend: p.backend, consents: services.get(CONSENTS), faces: p.faces, voices: services.find(VOICES),
    };
    return {
      deps,
      routes: avatarRoutes(deps),
      jobs: [
        {
          kind: AVATAR_JOB,
          handler: (job, ctx) => createAvatarJob(deps, job, ctx),
          maxAttempts: p.config.worker.maxAttempts,
          backoffMs: defaultBackoff,
          // The interface allows up to 24 hours for an avatar; a run longer than this is retried.
          timeLimitMs: 6 * 60 * 60 * 1000,
          onExhausted: async (job) => {
            await lifecycle.fail(job.resourceId, 'UnknownError', 'The avatar could not be checked and trained after several attempts');
          },
        },
      ],
      resources: [lifecycle],
      provides: [provide(USER_PRESENTERS, avatarPresenters({ lifecycle, media: p.media, remove: (userId, avatarId) => removeAvatar(deps, userId, avatarId) }))],
    };
  },
});
