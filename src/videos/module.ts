import { defineModule } from '../platform/module.ts';
import { int, MiB } from '../config.ts';
import { videoRoutes } from './routes.ts';

/** Video uploads into the caller's media store (POST /videos), for a consent's video and an avatar's footage. */
export const videosModule = defineModule({
  name: 'videos',
  config: {
    variables: [{ name: 'MIMIC_VIDEO_UPLOAD_MAX_BYTES', default: String(2048 * MiB), description: 'largest video POST /videos stores' }],
    load: (env) => ({ maxBytes: int(env, 'MIMIC_VIDEO_UPLOAD_MAX_BYTES', 2048 * MiB, MiB, 64 * 1024 * MiB) }),
  },
  create: ({ config, media, newId }, settings) => ({
    routes: videoRoutes({ media, newId, storageScheme: config.storageScheme, maxBytes: settings.maxBytes }),
  }),
});
