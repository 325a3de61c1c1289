import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { CONSENTS } from '../consents/contract.ts';
import { VOICES } from '../voices/contract.ts';
import { USER_PRESENTERS } from './contract.ts';
import { avatarSchemas } from './schemas.ts';
import { avatarSettled, avatars, presentAvatar } from './kind.ts';
import type { AvatarDeps } from './deps.ts';
import { avatarRoutes } from './routes.ts';
import { avatarSettings } from './settings.ts';
import { createAvatarJob } from './train.ts';
import { forgetRemoved } from './create.ts';
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
    const lifecycle = avatars.on(p, {
      present: (a) => presentAvatar(a, p.media),
      settled: avatarSettled({ media: p.media, queue: p.queue }),
      cost: settings.credits,
      onRemove: (a) => forgetRemoved({ voices: services.find(VOICES), log: p.log, queue: p.queue, media: p.media }, a),
    });
    const deps: AvatarDeps = {
      config: p.config, settings, lifecycle, clock: p.clock, newId: p.newId, schemas: avatarSchemas(p.config.storageScheme),
      queue: p.queue, media: p.media, client: p.client, log: p.log, backend: p.backend, consents: services.get(CONSENTS), faces: p.faces, voices: services.find(VOICES),
    };
    return {
      deps,
      routes: avatarRoutes(deps),
      jobs: [lifecycle.job((job, ctx) => createAvatarJob(deps, job, ctx))],
      resources: [lifecycle],
      provides: [provide(USER_PRESENTERS, avatarPresenters({ lifecycle, media: p.media, remove: (userId, avatarId) => lifecycle.delete(userId, avatarId) }))],
    };
  },
});
