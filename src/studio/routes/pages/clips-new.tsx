/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { StudioSession } from '../../../accounts/contract.ts';
import { NeedsScript, StatusLines } from '../components.tsx';
import { Layout } from '../layout.tsx';

/** What a text script may hold: the schema's bounds (src/speaking/schemas.ts TextScript). */
export const SCRIPT_MIN_CHARS = 3;
export const SCRIPT_MAX_CHARS = 40_000;

/**
 * The SSML the embedded voices honour (src/voices/ssml.ts): what the script editor offers to
 * insert, each with what it does. Any other tag is read as its text.
 */
export const SSML_HINTS: readonly { insert: string; what: string }[] = [
  { insert: '<break time="500ms"/>', what: 'a pause (up to 10 s; or strength="weak" … "x-strong")' },
  { insert: '<prosody rate="slow">…</prosody>', what: 'slower or faster: x-slow, slow, medium, fast, x-fast, or 80%' },
  { insert: '<sub alias="World Health Organization">WHO</sub>', what: 'says the alias in place of the text' },
  { insert: '<p>…</p>', what: 'a paragraph (<s> a sentence): a pause after it' },
];

/**
 * A new clip: presenter, voice (heard before choosing), script (a text, with SSML hints and
 * a live count, or an audio upload), background, then POST /clips, and on to the clip's
 * page to watch it render. clip-new.js does all of it with the session's token.
 */
export function NewClipPage({ session, csrf, presenterId }: { session: StudioSession; csrf: string; presenterId?: string }) {
  return (
    <Layout title="New clip" session={session} csrf={csrf} scripts={['clip-new.js']} styles={['clips.css']} current="/studio/clips">
      <h1>New clip</h1>
      <p class="lead">A presenter says your script. You can watch it render, then play and download it.</p>
      <form id="clip-form" novalidate data-presenter-id={presenterId ?? ''} data-min-chars={SCRIPT_MIN_CHARS} data-max-chars={SCRIPT_MAX_CHARS}>
        <fieldset class="panel">
          <legend>Presenter</legend>
          <p id="presenter-status" class="status" role="status" aria-live="polite">
            Loading presenters…
          </p>
          <div id="presenter-choices" class="choices" role="radiogroup" aria-label="Presenter" aria-describedby="presenter-error"></div>
          <p id="presenter-error" class="error" role="alert"></p>
          <p class="hint">
            <a href="/studio/presenters">See them talk in the gallery</a>
          </p>
        </fieldset>

        <fieldset class="panel">
          <legend>Voice</legend>
          <label for="voice">Who speaks the script</label>
          <div class="row">
            <select id="voice" name="voice" aria-describedby="voice-hint voice-error">
              <option value="">The presenter's own voice</option>
            </select>
            <button id="voice-sample" type="button" class="secondary">
              Hear a sample
            </button>
          </div>
          <p id="voice-hint" class="hint">
            Only a text script is spoken by a voice; an audio file speaks for itself.
          </p>
          <audio id="voice-audio" controls hidden aria-label="Voice sample"></audio>
          <StatusLines status="voice-status" error="voice-error" />
        </fieldset>

        <fieldset class="panel">
          <legend>Script</legend>
          <div class="choice-row" role="radiogroup" aria-label="What the presenter says">
            <label class="inline">
              <input type="radio" name="script-type" value="text" checked /> A text
            </label>
            <label class="inline">
              <input type="radio" name="script-type" value="audio" /> An audio file
            </label>
          </div>
          <div id="script-text-part">
            <label for="script">Script</label>
            <textarea id="script" name="script" rows={8} maxlength={SCRIPT_MAX_CHARS} aria-describedby="script-count script-error" spellcheck={true}></textarea>
            <p id="script-count" class="hint" aria-live="polite">
              0 characters
            </p>
            <label class="inline" for="ssml">
              <input id="ssml" type="checkbox" name="ssml" aria-describedby="ssml-hints-heading" /> Read it as SSML
            </label>
            <details id="ssml-hints" class="hints">
              <summary id="ssml-hints-heading">SSML the voices understand</summary>
              <p class="hint">With "Read it as SSML" on, these tags shape the speech; any other tag is read as its text. Insert one at the cursor:</p>
              <ul>
                {SSML_HINTS.map((h) => (
                  <li>
                    <button type="button" class="secondary insert" data-insert={h.insert}>
                      <code>{h.insert}</code>
                    </button>{' '}
                    {h.what}
                  </li>
                ))}
              </ul>
              <p class="hint">
                Write <code>&amp;</code> as <code>&amp;amp;</code> and <code>&lt;</code> as <code>&amp;lt;</code> in SSML.
              </p>
            </details>
            <p id="script-error" class="error" role="alert"></p>
          </div>
          <div id="script-audio-part" hidden>
            <label for="audio">Audio file</label>
            <input id="audio" name="audio" type="file" accept=".wav,.mp3,.flac,.m4a,.mp4,audio/*" aria-describedby="audio-hint audio-error" />
            <p id="audio-hint" class="hint">
              WAV, MP3, FLAC, M4A or MP4 sound, at most 15 MB and 5 minutes. It is uploaded when you create the clip.
            </p>
            <p id="audio-error" class="error" role="alert"></p>
          </div>
        </fieldset>

        <fieldset class="panel">
          <legend>Background</legend>
          <div class="choice-row" role="radiogroup" aria-label="Background">
            <label class="inline">
              <input type="radio" name="background" value="none" checked /> The presenter's own picture
            </label>
            <label class="inline">
              <input type="radio" name="background" value="color" /> A colour
            </label>
          </div>
          <div id="background-color-part" hidden>
            <label for="background-color">Colour</label>
            <input id="background-color" name="background-color" type="color" value="#2d6cdf" />
          </div>
        </fieldset>

        <div class="panel">
          <label for="clip-name">Name (optional)</label>
          <input id="clip-name" name="name" type="text" maxlength={200} autocomplete="off" aria-describedby="clip-name-hint" />
          <p id="clip-name-hint" class="hint">
            Shown in your list of clips.
          </p>
          <StatusLines status="clip-status" error="clip-error" />
          <button id="clip-create" type="submit">
            Create the clip
          </button>
        </div>
      </form>
      <NeedsScript />
    </Layout>
  );
}
