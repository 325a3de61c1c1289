import { defineModule } from '../platform/module.ts';
import { avatarSchemas } from './schemas.ts';
import { avatars, presentAvatar } from './kind.ts';
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
 * (`started`), and the presenter joins the user's presenters (`Platform.userPresenters`).
 * Listed after consents (it checks them) and before presenters and clips (its routes come
 * before /clips/{id}; the presenter catalogue lists what it trained).
 */
export const avatarsModule = defineModule({
  name: 'avatars',
  config: avatarSettings,
  commands: AVATAR_COMMANDS,
  create(p, settings) {
    if (!p.consents || !p.footage) throw new Error('the avatars module needs the consents module listed before it');
    const lifecycle = avatars.on(p, {
      present: (a) => presentAvatar(a, p.media),
      cost: settings.credits,
      onRemove: (a) => forgetRemoved({ voices: p.voices, log: p.log, queue: p.queue, media: p.media }, a),
    });
    const deps: AvatarDeps = {
      config: p.config, settings, lifecycle, clock: p.clock, newId: p.newId, schemas: avatarSchemas(p.config.storageScheme),
      queue: p.queue, media: p.media, client: p.client, log: p.log, backend: p.backend, consents: p.consents, faces: p.footage.faces, voices: p.voices,
    };
    return {
      deps,
      routes: avatarRoutes(deps),
      jobs: [lifecycle.job((job, ctx) => createAvatarJob(deps, job, ctx))],
      resources: [lifecycle],
      provides: { userPresenters: avatarPresenters({ lifecycle, media: p.media, remove: (userId, avatarId) => lifecycle.delete(userId, avatarId) }) },
    };
  },
});
