import { defineModule } from '../platform/module.ts';
import { mediaRoutes } from './routes.ts';

/**
 * Stored objects at signed, expiring URLs (GET /media/...), the one way media leaves the service.
 * The store, its access checks and the URL signatures are infrastructure (src/media/).
 */
export const mediaModule = defineModule({
  name: 'media',
  create: (p) => ({ routes: mediaRoutes({ store: p.mediaStore, urlKey: p.urlKey, clock: p.clock, make: p.media.make }) }),
});
