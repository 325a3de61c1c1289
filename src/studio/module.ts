import { defineModule } from '../platform/module.ts';
import { ACCOUNTS } from '../accounts/contract.ts';
import { studioSettings } from './settings.ts';
import { createStudioApp, studioRoutes } from './routes/app.ts';

/**
 * The studio: the web app for people at /studio (server-rendered pages, a few small scripts,
 * its own cookie, CSRF and headers). Its pages call the public API with bearer tokens the
 * accounts capability mints for the session (docs/studio.md).
 */
export const studioModule = defineModule({
  name: 'studio',
  config: studioSettings,
  needs: [ACCOUNTS],
  create(p, settings, services) {
    const studio = createStudioApp({ accounts: services.get(ACCOUNTS), publicUrl: p.config.publicUrl, trustedProxies: settings.trustedProxies, log: p.log });
    return { routes: studioRoutes(studio) };
  },
});
