/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Hono } from 'hono';
import type { StudioSession } from '../../../accounts/contract.ts';
import type { StudioEnv } from '../env.ts';
import { requireSession } from '../session.ts';
import { ListTable, NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';

/** An avatar id as the API makes them (`avt_…`); any other path under /studio/avatars/ is the studio's 404. */
const AVATAR_ID = /^avt_[A-Za-z0-9]{1,64}$/;

/** The avatar pages (issue 20 §3.2): the list, a new avatar, one avatar; each behind requireSession. */
export function avatarPages(app: Hono<StudioEnv>): void {
  app.get('/avatars', requireSession(), (c) => c.html(AvatarsPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/avatars/new', requireSession(), (c) => c.html(NewAvatarPage({ session: c.get('session')!, csrf: c.get('csrf')! })));
  app.get('/avatars/:id', requireSession(), (c) => {
    const id = c.req.param('id');
    if (!AVATAR_ID.test(id)) return c.notFound();
    return c.html(AvatarPage({ session: c.get('session')!, csrf: c.get('csrf')!, id }));
  });
}

interface PageProps {
  session: StudioSession;
  csrf: string;
}

/**
 * The person's premium-plus avatars, newest first, with their status: avatars.js reads
 * GET /clips/avatars with the session's token.
 */
export function AvatarsPage({ session, csrf }: PageProps) {
  return (
    <Layout title="Avatars" session={session} csrf={csrf} scripts={['avatars.js']} styles={['avatar.css']} current="/studio/avatars">
      <div class="heading-row">
        <h1>Avatars</h1>
        <a class="button" href="/studio/avatars/new">
          New avatar
        </a>
      </div>
      <p class="lead">
        An avatar is a presenter made from your own footage: mimic checks the footage, trains on it, and the presenter then speaks any script in your clips.
      </p>
      <StatusLines error="avatars-error" />
      <ListTable
        heading={{ id: 'avatars-heading', text: 'Your avatars', hidden: true }}
        rows="avatars-rows"
        columns={['Name', 'Status', 'Created']}
        more={{ id: 'avatars-more', text: 'Show more avatars' }}
      />
      <NeedsScript />
    </Layout>
  );
}

/**
 * A new avatar: a verified consent of the person not used yet, the presenter's name and
 * gender, and the footage, uploaded resumably (POST/PATCH /videos/uploads through upload.js),
 * then POST /clips/avatars. avatar-new.js does all of it with the session's token.
 */
export function NewAvatarPage({ session, csrf }: PageProps) {
  return (
    <Layout title="New avatar" session={session} csrf={csrf} scripts={['avatar-new.js']} styles={['avatar.css']} current="/studio/avatars">
      <p class="breadcrumb">
        <a href="/studio/avatars">Avatars</a>
      </p>
      <h1>New avatar</h1>
      <p id="consents-status" class="status" role="status" aria-live="polite">
        Looking for your verified consents…
      </p>
      <div id="no-consent" class="panel" hidden>
        <h2>First, a consent</h2>
        <p>
          An avatar needs a verified consent: a short video of the person saying they agree, recorded once for each avatar. You have none that is verified and not used yet.
        </p>
        <p>
          <a class="button" href="/studio/consents">
            Record a consent
          </a>
        </p>
      </div>
      <form id="avatar-form" class="avatar-form" novalidate hidden>
        <fieldset class="panel">
          <legend>Who</legend>
          <label for="consent">Consent</label>
          <select id="consent" name="consent_id" required aria-describedby="consent-hint"></select>
          <p id="consent-hint" class="hint">
            A verified consent of the person in the footage. Each consent makes one avatar.
          </p>
          <label for="avatar-name">Name</label>
          <input id="avatar-name" name="name" type="text" required maxlength={100} autocomplete="off" aria-describedby="name-hint" />
          <p id="name-hint" class="hint">
            The name said in the consent video; it is also the presenter's name (you can rename the presenter later).
          </p>
          <fieldset class="choices">
            <legend>Voice</legend>
            <p class="hint">The presenter's voice is chosen to match, at the pitch measured in the footage.</p>
            <div class="choice">
              <input id="gender-female" name="gender" type="radio" value="female" checked />
              <label for="gender-female">Female</label>
            </div>
            <div class="choice">
              <input id="gender-male" name="gender" type="radio" value="male" />
              <label for="gender-male">Male</label>
            </div>
          </fieldset>
        </fieldset>
        <fieldset class="panel">
          <legend>Footage</legend>
          <ul class="hint requirements">
            <li>at least 5 minutes of the person speaking, facing the camera, alone in the picture;</li>
            <li>the last 30 seconds or more silent and still, mouth closed;</li>
            <li>mp4, mov or webm, at least 360 pixels on its shorter side (640 × 360 or larger).</li>
          </ul>
          <label for="footage">Footage file</label>
          <input id="footage" name="footage" type="file" accept="video/mp4,video/quicktime,video/webm,.mp4,.mov,.webm" required aria-describedby="footage-hint" />
          <p id="footage-hint" class="hint">
            A large file is sent in parts: if the connection drops, the upload carries on from where it stopped.
          </p>
          <p id="footage-resume" class="status resume" role="status" aria-live="polite"></p>
          <div class="choice">
            <input id="greenscreen" name="is_greenscreen" type="checkbox" />
            <label for="greenscreen">Filmed in front of a green screen</label>
          </div>
        </fieldset>
        <p id="avatar-form-error" class="error" role="alert" tabindex={-1}></p>
        <div class="row">
          <button id="avatar-submit" type="submit">
            Upload and create the avatar
          </button>
        </div>
      </form>
      <section id="upload-panel" class="panel" aria-labelledby="upload-heading" hidden>
        <h2 id="upload-heading">Uploading the footage</h2>
        <progress id="upload-progress" max={100} value={0} aria-labelledby="upload-heading" aria-describedby="upload-figures"></progress>
        <p id="upload-figures" class="figures"></p>
        <p id="upload-status" class="status" role="status" aria-live="polite"></p>
        <div class="row">
          <button id="upload-cancel" type="button" class="secondary">
            Cancel upload
          </button>
        </div>
      </section>
      <NeedsScript />
    </Layout>
  );
}

/**
 * One avatar: each footage check as it is measured, then training progress, then the
 * presenter with its talking preview, live from GET /clips/avatars/{id}/events (avatar.js).
 * The id reaches the script through a data attribute; it is only ever sent to the API.
 */
export function AvatarPage({ session, csrf, id }: PageProps & { id: string }) {
  return (
    <Layout title="Avatar" session={session} csrf={csrf} scripts={['avatar.js']} styles={['avatar.css']} current="/studio/avatars">
      <p class="breadcrumb">
        <a href="/studio/avatars">Avatars</a>
      </p>
      <div id="avatar" data-avatar-id={id}>
        <h1 id="avatar-title">Avatar</h1>
        <p id="avatar-status" class="status" role="status" aria-live="polite">
          Loading…
        </p>
        <div id="avatar-problem" class="problem" role="alert" hidden>
          <p id="avatar-problem-text"></p>
          <p id="avatar-problem-next"></p>
          <p id="avatar-problem-detail" class="hint"></p>
          <p id="avatar-problem-actions" hidden>
            <a class="button" href="/studio/avatars/new">
              Make a new avatar
            </a>
          </p>
        </div>
        <ol class="stages">
          <li class="panel stage" id="stage-checks">
            <h2>Footage checks</h2>
            <ul id="checks" class="checks" aria-live="polite"></ul>
          </li>
          <li class="panel stage" id="stage-training">
            <h2 id="training-heading">Training</h2>
            <progress id="training-progress" max={1} value={0} aria-labelledby="training-heading" aria-describedby="training-text"></progress>
            <p id="training-text" class="figures">
              Starts when every check has passed.
            </p>
          </li>
          <li class="panel stage" id="stage-presenter">
            <h2>Presenter</h2>
            <p id="presenter-text">Ready when training ends.</p>
            <div id="presenter" class="presenter" hidden>
              <video id="presenter-preview" controls playsinline preload="metadata" aria-describedby="presenter-preview-caption"></video>
              <p id="presenter-preview-caption" class="hint"></p>
              <dl class="facts">
                <dt>Presenter id</dt>
                <dd>
                  <code id="presenter-id"></code>
                </dd>
                <dt>Voice</dt>
                <dd id="presenter-voice"></dd>
              </dl>
              <p>
                <a id="presenter-clip" class="button" href="/studio/clips/new">
                  Make a clip with this presenter
                </a>
              </p>
            </div>
          </li>
        </ol>
      </div>
      <NeedsScript />
    </Layout>
  );
}
