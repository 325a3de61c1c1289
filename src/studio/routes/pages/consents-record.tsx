/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';

/**
 * Recording a consent, and one consent's page (the same page: a consent still waiting for its
 * video is recorded here, one already uploaded shows its checks). consent-record.js drives it:
 * GET /consents/languages and POST /consents (the statement), the camera and microphone
 * (recorder.js), POST /videos (the upload, with its progress) and POST /consents/{id}, then
 * each verification step live from /consents/{id}/events. Every text it shows goes in as text.
 */
export function ConsentRecordPage({ session, csrf, consentId }: { session: StudioSession; csrf: string; consentId?: string }) {
  return (
    <Layout
      title={consentId ? 'Consent' : 'Record a consent'}
      session={session}
      csrf={csrf}
      scripts={['consent-record.js']}
      styles={['consent.css']}
      current="/studio/consents"
    >
      <div id="consent-app" data-consent-id={consentId ?? ''}>
        <p class="crumbs">
          <a href="/studio/consents">Consents</a>
        </p>
        <h1 id="consent-heading" tabindex={-1}>
          {consentId ? 'Consent' : 'Record a consent'}
        </h1>
        <StatusLines status="page-status" error="page-error" />

        <section id="step-choose" class="panel" aria-labelledby="choose-heading" hidden>
          <h2 id="choose-heading">1. Your statement</h2>
          <p>
            You will read a short statement aloud on camera: that you agree to an avatar of you being made, your name, and three passcode words that prove the
            video was made now. You have 30 minutes to record it.
          </p>
          <form id="choose-form" novalidate>
            <label for="consent-language">Language of the statement</label>
            <select id="consent-language" name="language" required aria-describedby="language-hint">
              <option value="">Loading the languages…</option>
            </select>
            <p id="language-hint" class="hint"></p>
            <label for="consent-name">Your full name</label>
            <input id="consent-name" name="name" type="text" autocomplete="name" required maxlength={100} aria-describedby="name-hint choose-error" />
            <p id="name-hint" class="hint">
              You say it in the statement, as you write it here.
            </p>
            <p id="choose-error" class="error" role="alert"></p>
            <button type="submit" id="choose-submit">
              Show my statement
            </button>
          </form>
        </section>

        <section id="step-record" class="panel" aria-labelledby="record-heading" hidden>
          <h2 id="record-heading" tabindex={-1}>
            2. Read this aloud, looking at the camera
          </h2>
          <label for="record-name">Your full name</label>
          <input id="record-name" name="name" type="text" autocomplete="name" required maxlength={100} aria-describedby="record-name-hint" />
          <p id="record-name-hint" class="hint">
            Say it where the statement shows it.
          </p>
          <blockquote id="statement" class="statement"></blockquote>
          <h3 id="passcode-heading" class="passcode-heading">
            Your passcode
          </h3>
          <ol id="passcode" class="passcode" aria-labelledby="passcode-heading"></ol>
          <p id="expires" class="hint"></p>

          <div class="recorder">
            <div class="stage">
              <p id="camera-off" class="camera-off">
                Camera off
              </p>
              <video id="preview" class="preview" muted playsinline aria-label="Camera preview"></video>
              <video id="playback" class="preview" controls playsinline aria-label="Your recording" hidden></video>
              <p id="countdown" class="countdown" aria-live="assertive" hidden></p>
              <p id="rec-indicator" class="rec-indicator" hidden>
                <span aria-hidden="true">●</span> Recording <span id="rec-time">0:00</span>
              </p>
            </div>
            <div class="level">
              <label for="level">Microphone level</label>
              <meter id="level" min={0} max={100} low={20} high={90} optimum={60} value={0} aria-describedby="level-text"></meter>
              <span id="level-text" class="hint">Microphone off</span>
            </div>
            <div class="row controls">
              <button id="camera-on" type="button">
                Turn on camera and microphone
              </button>
              <button id="record" type="button" hidden>
                Start recording
              </button>
              <button id="stop" type="button" class="danger solid" hidden>
                Stop recording
              </button>
              <button id="rerecord" type="button" class="secondary" hidden>
                Record again
              </button>
              <button id="upload" type="button" hidden>
                Upload and check
              </button>
            </div>
            <StatusLines status="record-status" error="record-error" />
            <div id="upload-progress" hidden>
              <label for="upload-bar">Uploading your video</label>
              <div class="row">
                <progress id="upload-bar" max={100} value={0} aria-describedby="upload-percent"></progress>
                <span id="upload-percent">0 %</span>
              </div>
            </div>
          </div>
          <details class="tips">
            <summary>Tips for a video that passes</summary>
            <ul>
              <li>Be alone in the picture, your whole face visible, looking at the camera, in front of a light rather than with it behind you.</li>
              <li>Read the whole statement at a normal pace, your name where it shows it, and the three passcode words clearly.</li>
              <li>A quiet room: watch the microphone level rise when you speak.</li>
            </ul>
          </details>
        </section>

        <section id="step-verify" class="panel" aria-labelledby="verify-heading" hidden>
          <h2 id="verify-heading" tabindex={-1}>
            3. Checking your video
          </h2>
          <div id="outcome" class="outcome" role="status" aria-live="polite" hidden>
            <p id="outcome-title" class="outcome-title"></p>
            <p id="outcome-text"></p>
            <p id="outcome-detail" class="hint"></p>
            <button id="record-again" type="button" hidden>
              Record again
            </button>
          </div>
          <dl class="facts" id="consent-facts"></dl>
          <ol id="checks" class="checks" aria-live="polite"></ol>
          <p>
            <a class="button secondary" href="/studio/consents">
              All your consents
            </a>
          </p>
        </section>
        <NeedsScript>it records with your camera and calls the API from your browser.</NeedsScript>
      </div>
    </Layout>
  );
}
