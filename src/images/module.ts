import { defineModule } from '../platform/module.ts';
import { imageRoutes } from './routes.ts';

/** Photo uploads into the caller's media store (POST /images). */
export const imagesModule = defineModule({
  name: 'images',
  create: ({ config, media, newId }) => ({
    routes: imageRoutes({ media, newId, storageScheme: config.storageScheme, maxBytes: config.fetch.maxImageBytes }),
  }),
});
