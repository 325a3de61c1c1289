import type { Hono } from 'hono';
import type { StudioDeps, StudioEnv } from '../env.ts';
import { requireSession } from '../session.ts';
import { assetRoutes } from '../assets.ts';
import { HomePage } from './home.tsx';
import { KeysPage } from './keys.tsx';
import { AccountPage } from './account.tsx';
import { toolAndAuditPages } from './tools-routes.ts';

/**
 * The studio's pages: its assets (public: the sign-in page needs the style sheet), then the
 * pages of a signed-in person, each behind requireSession (303 to sign-in, then back).
 */
export function pageRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  void deps;
  assetRoutes(app);
  app.get('/', requireSession(), (c) => c.html(HomePage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/keys', requireSession(), (c) => c.html(KeysPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/account', requireSession(), (c) => c.html(AccountPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  toolAndAuditPages(app);
}
