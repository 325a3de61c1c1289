import { defineModule } from '../platform/module.ts';
import { audioRoutes } from './routes.ts';
import { AUDIO_LIMITS } from '../media/audio.ts';

/** Audio uploads into the caller's media store (POST /audios), for `script.audio_url`. */
export const audiosModule = defineModule({
  name: 'audios',
  create: ({ config, media, newId }) => ({
    routes: audioRoutes({ media, newId, storageScheme: config.storageScheme, limits: AUDIO_LIMITS }),
  }),
});
