import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { USER_PRESENTERS } from '../avatars/contract.ts';
import { PRESENTERS } from './contract.ts';
import { createPresenterCatalogue } from './catalogue.ts';
import { presenterRoutes } from './routes.ts';
import { presenterSettings } from './aliases.ts';

/**
 * Presenters: GET /clips/presenters and /clips/presenters/{id}. Its catalogue (`PRESENTERS`)
 * is what clips, streams and agents speak with; it lists users' own presenters when a module
 * provides them (`USER_PRESENTERS`, the avatars').
 */
export const presentersModule = defineModule({
  name: 'presenters',
  config: presenterSettings,
  uses: [USER_PRESENTERS],
  provides: [PRESENTERS],
  create(p, settings, services) {
    const users = services.find(USER_PRESENTERS);
    const catalogue = createPresenterCatalogue({ media: p.media, aliases: settings.aliases, ...(users ? { users } : {}) });
    return {
      catalogue,
      provides: [provide(PRESENTERS, catalogue)],
      routes: presenterRoutes(catalogue),
      start() {
        catalogue.ensureAssets().catch((err: unknown) => p.log.warn('presenter pictures not copied', { error: (err as Error).message }));
      },
    };
  },
});
