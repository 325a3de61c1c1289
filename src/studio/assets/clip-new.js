// The new-clip form: a presenter (GET /clips/presenters), a voice heard before it is chosen
// (voice.js), a script (a text with SSML hints and a live count, or an audio file uploaded
// with POST /audios), a background; POST /clips creates it and the page goes to the clip's
// own, where it is watched as it renders. Text goes in with textContent only.
import { api, getToken, showError } from './api.js';
import { allPages } from './paging.js';
import { voicePicker } from './voice.js';

const $ = (id) => document.getElementById(id);
const form = $('clip-form');
const choices = $('presenter-choices');
const script = $('script');
const count = $('script-count');
const ssml = $('ssml');
const audio = $('audio');
const createButton = $('clip-create');
const status = $('clip-status');
const error = $('clip-error');
const fieldErrors = { presenter: $('presenter-error'), voice: $('voice-error'), script: $('script-error'), audio: $('audio-error'), clip: error };
const MIN_CHARS = Number(form.dataset.minChars);
const MAX_CHARS = Number(form.dataset.maxChars);
/** Speech runs at about 150 words a minute; one credit per started 15 s (docs/clips.md). */
const WORDS_PER_SECOND = 2.5;
const SECONDS_PER_CREDIT = 15;

const presenters = new Map();
const radio = (name) => form.querySelector(`input[name="${name}"]:checked`)?.value;

function clearErrors() {
  for (const el of Object.values(fieldErrors)) el.textContent = '';
  status.textContent = '';
}

/** The text a script says: SSML tags are not spoken. */
const spoken = () => (ssml.checked ? script.value.replace(/<[^>]*>/g, ' ') : script.value);

function updateCount() {
  const chars = script.value.length;
  const words = spoken().trim().split(/\s+/).filter(Boolean).length;
  const seconds = Math.max(1, Math.round(words / WORDS_PER_SECOND));
  const credits = Math.max(1, Math.ceil(seconds / SECONDS_PER_CREDIT));
  count.textContent = words === 0
    ? `${chars.toLocaleString()} of ${MAX_CHARS.toLocaleString()} characters`
    : `${chars.toLocaleString()} of ${MAX_CHARS.toLocaleString()} characters · about ${seconds} s of speech · about ${credits} credit${credits === 1 ? '' : 's'}`;
  count.classList.toggle('over', chars > MAX_CHARS);
}

function presenterChoice(p, checked) {
  const label = document.createElement('label');
  label.className = 'choice';
  const input = document.createElement('input');
  input.type = 'radio';
  input.name = 'presenter';
  input.value = p.presenter_id;
  input.checked = checked;
  const img = document.createElement('img');
  img.src = p.thumbnail_url;
  img.alt = '';
  img.width = 64;
  img.height = 64;
  const name = document.createElement('span');
  name.textContent = p.name;
  label.append(input, img, name);
  return label;
}

async function loadPresenters() {
  const wanted = form.dataset.presenterId;
  const { items, failed } = await allPages('/clips/presenters?limit=100', 'presenters');
  for (const p of items) presenters.set(p.presenter_id, p);
  if (failed) return showError(fieldErrors.presenter, failed);
  const first = presenters.has(wanted) ? wanted : presenters.keys().next().value;
  for (const p of presenters.values()) choices.append(presenterChoice(p, p.presenter_id === first));
  $('presenter-status').textContent = wanted && !presenters.has(wanted) ? 'That presenter is not yours or no longer exists: pick another.' : '';
}

/** Uploads the chosen audio file (POST /audios, multipart): its storage URL, or null after saying why. */
async function uploadAudio() {
  const file = audio.files[0];
  if (!file) {
    fieldErrors.audio.textContent = 'Choose an audio file.';
    audio.focus();
    return null;
  }
  status.textContent = `Uploading ${file.name}…`;
  const body = new FormData();
  body.append('audio', file);
  const res = await fetch('/audios', { method: 'POST', headers: { authorization: `Bearer ${await getToken()}` }, body });
  const parsed = await res.json().catch(() => null);
  if (res.status !== 201) {
    status.textContent = '';
    showError(fieldErrors.audio, { status: res.status, body: parsed });
    audio.focus();
    return null;
  }
  return parsed.url;
}

/** Puts an API error beside the field it names (details[].field), else above the button. */
function showApiError(res) {
  const field = res.body?.details?.[0]?.field ?? '';
  const target = field.startsWith('presenter') ? 'presenter' : field.startsWith('script.provider') ? 'voice' : field.startsWith('script.audio') ? 'audio' : field.startsWith('script') ? 'script' : 'clip';
  showError(fieldErrors[target], res);
  ({ presenter: choices.querySelector('input:checked'), voice: $('voice'), script, audio }[target] ?? createButton).focus();
}

async function create(voices) {
  clearErrors();
  const presenterId = radio('presenter');
  if (!presenterId) {
    fieldErrors.presenter.textContent = 'Pick a presenter.';
    return choices.querySelector('input')?.focus();
  }
  const body = { presenter_id: presenterId };
  if (radio('script-type') === 'audio') {
    const url = await uploadAudio();
    if (!url) return;
    body.script = { type: 'audio', audio_url: url };
  } else {
    if (spoken().trim().length < MIN_CHARS) {
      fieldErrors.script.textContent = `Write what the presenter says: at least ${MIN_CHARS} characters.`;
      return script.focus();
    }
    body.script = { type: 'text', input: script.value, ...(ssml.checked ? { ssml: true } : {}) };
    const voice = voices.chosen();
    if (voice) body.script.provider = voice;
  }
  if (radio('background') === 'color') body.background = { color: $('background-color').value };
  const name = $('clip-name').value.trim();
  if (name) body.name = name;
  status.textContent = 'Creating the clip…';
  const res = await api('POST', '/clips', body);
  if (res.status !== 201) {
    status.textContent = '';
    return showApiError(res);
  }
  status.textContent = 'Created: opening it…';
  location.assign(`/studio/clips/${encodeURIComponent(res.body.id)}`);
}

function insertAtCursor(text) {
  script.focus();
  script.setRangeText(text, script.selectionStart, script.selectionEnd, 'end');
  ssml.checked = true;
  updateCount();
}

function toggleParts() {
  const audioScript = radio('script-type') === 'audio';
  $('script-text-part').hidden = audioScript;
  $('script-audio-part').hidden = !audioScript;
  $('background-color-part').hidden = radio('background') !== 'color';
}

async function main() {
  const voicesReady = voicePicker({
    select: $('voice'),
    button: $('voice-sample'),
    audio: $('voice-audio'),
    status: $('voice-status'),
    error: fieldErrors.voice,
    presenterVoice: () => presenters.get(radio('presenter'))?.voice,
  });
  await loadPresenters();
  return voicesReady;
}

script.addEventListener('input', () => {
  fieldErrors.script.textContent = '';
  updateCount();
});
audio.addEventListener('change', () => {
  fieldErrors.audio.textContent = '';
});
choices.addEventListener('change', () => {
  fieldErrors.presenter.textContent = '';
});
ssml.addEventListener('change', updateCount);
form.addEventListener('change', toggleParts);
for (const button of form.querySelectorAll('button.insert')) button.addEventListener('click', () => insertAtCursor(button.dataset.insert));
updateCount();
toggleParts();
const ready = main();
ready.catch((err) => {
  error.textContent = err.message;
});
form.addEventListener('submit', (e) => {
  e.preventDefault();
  createButton.disabled = true;
  ready
    .then((voices) => create(voices))
    .catch((err) => {
      status.textContent = '';
      error.textContent = err.message;
    })
    .finally(() => {
      createButton.disabled = false;
    });
});
