/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import type { Hono } from 'hono';
import type { StudioEnv } from '../env.ts';
import { requireSession } from '../session.ts';
import { ListTable, NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';
import { ConsentRecordPage } from './consents-record.tsx';

/** What a consent id looks like (`cns_…`): anything else is the studio's 404, not a page that fails later. */
const CONSENT_ID = /^cns_[A-Za-z0-9_-]{1,64}$/;

/** The consent pages: the list, recording a new one, and one consent (recorded there while it waits for its video). */
export function consentPages(app: Hono<StudioEnv>): void {
  app.get('/consents', requireSession(), (c) => c.html(ConsentsPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/consents/new', requireSession(), (c) => c.html(ConsentRecordPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/consents/:id', requireSession(), (c) => {
    const id = c.req.param('id');
    if (!CONSENT_ID.test(id)) return c.notFound();
    return c.html(ConsentRecordPage({ session: c.get('session')!, csrf: c.get('csrf')!, consentId: id }));
  });
}

/**
 * The person's consents, newest first, each with its status in words and a link to its page;
 * "Record a consent" starts a new one. The list is consents.js calling GET /consents (with
 * `?status=` when a filter is chosen) with the session's token.
 */
export function ConsentsPage({ session, csrf }: { session: StudioSession; csrf: string }) {
  return (
    <Layout title="Consents" session={session} csrf={csrf} scripts={['consents.js']} styles={['consent.css']} current="/studio/consents">
      <h1>Consents</h1>
      <p class="lead">
        Before mimic makes an avatar of a person, that person records a short video in which they read a statement with their name and a passcode. mimic checks the
        video, and a verified consent can then be used for one avatar.
      </p>
      <p>
        <a class="button" href="/studio/consents/new">
          Record a consent
        </a>
      </p>
      <div class="row consent-filter">
        <label for="consents-status">Show</label>
        <select id="consents-status">
          <option value="">All consents</option>
          <option value="done">Verified</option>
          <option value="validating">Being checked or waiting for an operator</option>
          <option value="created">Waiting for a video</option>
          <option value="error">Not verified</option>
        </select>
      </div>
      <StatusLines error="consents-error" />
      <ListTable
        heading={{ id: 'consents-heading', text: 'Your consents' }}
        rows="consents-rows"
        columns={['Name', 'Language', 'Status', 'Created']}
        more={{ id: 'consents-more', text: 'Show more consents' }}
      />
      <NeedsScript />
    </Layout>
  );
}
