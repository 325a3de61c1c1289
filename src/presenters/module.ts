import { defineModule } from '../platform/module.ts';
import { createPresenterCatalogue } from './catalogue.ts';
import { presenterRoutes } from './routes.ts';
import { presenterSettings } from './aliases.ts';

/**
 * Presenters: GET /clips/presenters and /clips/presenters/{id}. Its `catalogue` is what the
 * clips module speaks with (services.modules.presenters.catalogue). Listed before clips in
 * src/modules.ts: its routes must be mounted before /clips/{id}.
 */
export const presentersModule = defineModule({
  name: 'presenters',
  config: presenterSettings,
  create(p, settings) {
    const catalogue = createPresenterCatalogue({ media: p.media, aliases: settings.aliases, ...(p.userPresenters ? { users: p.userPresenters } : {}) });
    return {
      catalogue,
      provides: { presenters: catalogue },
      routes: presenterRoutes(catalogue),
      start() {
        catalogue.ensureAssets().catch((err: unknown) => p.log.warn('presenter pictures not copied', { error: (err as Error).message }));
      },
    };
  },
});
