import type { Hono } from 'hono';
import type { StudioDeps, StudioEnv } from '../env.ts';
import { requireSession } from '../session.ts';
import { assetRoutes } from '../assets.ts';
import { HomePage } from './home.tsx';
import { KeysPage } from './keys.tsx';
import { AccountPage } from './account.tsx';
import { avatarPages } from './avatars.tsx';
import { PresentersPage } from './presenters.tsx';
import { NewClipPage } from './clips-new.tsx';
import { RenderListPage, RenderPage } from './clips.tsx';
import { agentPageRoutes } from './agents-routes.ts';
import { SecretsPage } from './secrets.tsx';
import { ConnectSecretPage } from './secrets-connect.tsx';
import { OAUTH2_CALLBACK_PATH } from '../../../secrets/contract.ts';
import { consentPages } from './consents.tsx';
import { toolAndAuditPages } from './tools-routes.ts';

/**
 * The studio's pages: its assets (public: the sign-in page needs the style sheet), then the
 * pages of a signed-in person, each behind requireSession (303 to sign-in, then back).
 */
export function pageRoutes(app: Hono<StudioEnv>, deps: StudioDeps): void {
  assetRoutes(app);
  app.get('/', requireSession(), (c) => c.html(HomePage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/keys', requireSession(), (c) => c.html(KeysPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/account', requireSession(), (c) => c.html(AccountPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  avatarPages(app);
  app.get('/presenters', requireSession(), (c) => c.html(PresentersPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/clips/new', requireSession(), (c) => c.html(NewClipPage({ session: c.get('session')!, csrf: c.get('csrf')!, presenterId: c.req.query('presenter_id')?.slice(0, 200) })));
  for (const kind of ['clips', 'talks', 'animations'] as const) {
    app.get(`/${kind}`, requireSession(), (c) => c.html(RenderListPage({ session: c.get('session')!, csrf: c.get('csrf')!, kind, status: c.req.query('status') })));
    app.get(`/${kind}/:id{[A-Za-z0-9_]{1,100}}`, requireSession(), (c) => c.html(RenderPage({ session: c.get('session')!, csrf: c.get('csrf')!, kind, id: c.req.param('id') })));
  }
  agentPageRoutes(app, deps);
  app.get('/secrets', requireSession(), (c) => c.html(SecretsPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/secrets/connect', requireSession(), (c) => {
    const { connection, result, secret } = c.req.query();
    const redirectUri = `${deps.publicUrl}${OAUTH2_CALLBACK_PATH}`;
    return c.html(ConnectSecretPage({ session: c.get('session')!, csrf: c.get('csrf')!, redirectUri, connection, result, secret }));
  });
  consentPages(app);
  toolAndAuditPages(app);
}
