/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';

/**
 * The presenters gallery: the built-in presenters and the person's own (trained avatars),
 * each with its still, its talking preview (played on hover and on keyboard focus, muted) and
 * "Make a clip". presenters.js builds it from GET /clips/presenters with the session's token.
 */
export function PresentersPage({ session, csrf }: { session: StudioSession; csrf: string }) {
  return (
    <Layout title="Presenters" session={session} csrf={csrf} scripts={['presenters.js']} styles={['clips.css']} current="/studio/presenters">
      <h1>Presenters</h1>
      <p class="lead">
        The faces that speak your clips. Point at one, or move to it with the Tab key, to see it talk (muted). Your own presenters, trained from your footage, come after
        the built-in ones.
      </p>
      <StatusLines status="presenters-status" error="presenters-error">
        Loading presenters…
      </StatusLines>
      <ul id="presenters" class="gallery" aria-label="Presenters" aria-busy="true"></ul>
      <p>
        <button id="presenters-more" type="button" class="secondary" hidden>
          Show more presenters
        </button>
      </p>
      <NeedsScript />
    </Layout>
  );
}
