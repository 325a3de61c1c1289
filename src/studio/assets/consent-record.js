// Recording a consent, and one consent's page. Three steps on one page:
//  1. choose: the language (GET /consents/languages, saying which are checked by speech
//     recognition and which by an operator) and the name; POST /consents gives the statement.
//  2. record: the statement with the name filled in and the passcode words large; the camera
//     and microphone (recorder.js) with a countdown, a level meter, the preview and a playback
//     of the take; record again; upload with a progress bar (POST /videos), then
//     POST /consents/{id} {name, source_url}.
//  3. verify: each check as it is measured, live (watch() on /consents/{id}/events), ending
//     verified, waiting for an operator, or refused with the reason and "Record again".
// A consent still waiting for its video opens at step 2; any other at step 3. Text only
// through textContent.
import { api, getToken, showError } from './api.js';
import { watch } from './live.js';
import { CHECKS, describeStep, outcomeOf } from './consent-checks.js';
import { Recorder, clock } from './recorder.js';

const $ = (id) => document.getElementById(id);
const app = $('consent-app');
const heading = $('consent-heading');
const pageStatus = $('page-status');
const pageError = $('page-error');
const steps = { choose: $('step-choose'), record: $('step-record'), verify: $('step-verify') };

const chooseForm = $('choose-form');
const languageSelect = $('consent-language');
const languageHint = $('language-hint');
const chooseName = $('consent-name');
const chooseError = $('choose-error');
const chooseSubmit = $('choose-submit');

const recordName = $('record-name');
const statementEl = $('statement');
const passcodeEl = $('passcode');
const expiresEl = $('expires');
const preview = $('preview');
const cameraOff = $('camera-off');
const playback = $('playback');
const countdown = $('countdown');
const recIndicator = $('rec-indicator');
const recTime = $('rec-time');
const level = $('level');
const levelText = $('level-text');
const buttons = { camera: $('camera-on'), record: $('record'), stop: $('stop'), rerecord: $('rerecord'), upload: $('upload') };
const recordStatus = $('record-status');
const recordError = $('record-error');
const uploadBox = $('upload-progress');
const uploadBar = $('upload-bar');
const uploadPercent = $('upload-percent');

const verifyHeading = $('verify-heading');
const facts = $('consent-facts');
const checksEl = $('checks');
const outcomeBox = $('outcome');
const outcomeTitle = $('outcome-title');
const outcomeText = $('outcome-text');
const outcomeDetail = $('outcome-detail');
const recordAgain = $('record-again');

/** The consent being recorded or shown (the API's record, or POST /consents's answer). */
let consent = null;
let take = null;
let watching = null;
let languages = [];

const recorder = new Recorder({
  preview,
  onLevel: ({ value, db }) => {
    level.value = value;
    levelText.textContent = !recorder.stream ? 'Microphone off' : db < -50 ? 'Silent: speak, or check your microphone' : db < -35 ? 'Quiet' : db > -3 ? 'Too loud' : 'Good';
  },
  onTrackEnded: (kind) => {
    recordError.textContent = kind === 'video' ? 'The camera stopped (unplugged, or taken by another app). Turn it on again.' : 'The microphone stopped (unplugged, or taken by another app). Turn it on again.';
    recorder.close();
    cameraOff.hidden = false;
    show({ camera: true });
  },
});

function showStep(name) {
  for (const [k, el] of Object.entries(steps)) el.hidden = k !== name;
}

/** Shows exactly the recorder buttons named. */
function show(which) {
  for (const [k, b] of Object.entries(buttons)) b.hidden = !which[k];
}

// ---------------------------------------------------------------------------------------------
// 1. Choose a language and give the name

async function loadLanguages() {
  const res = await api('GET', '/consents/languages');
  if (res.status !== 200) return showError(chooseError, res);
  languages = [...res.body.languages].sort((a, b) => a.name.localeCompare(b.name));
  const label = (l) => l.name.charAt(0).toUpperCase() + l.name.slice(1);
  const recognised = languages.filter((l) => l.recognised).map(label);
  const reviewed = languages.filter((l) => !l.recognised).map(label);
  languageSelect.replaceChildren();
  for (const l of languages) {
    const option = document.createElement('option');
    option.value = l.name;
    option.lang = l.code;
    option.textContent = `${label(l)} (${l.recognised ? 'checked by speech recognition' : 'checked by an operator'})`;
    languageSelect.append(option);
  }
  const wanted = new URLSearchParams(location.search).get('language');
  languageSelect.value = languages.some((l) => l.name === wanted) ? wanted : languages.some((l) => l.name === 'english') ? 'english' : languages[0]?.name ?? '';
  const parts = [];
  if (recognised.length) parts.push(`Checked at once by speech recognition: ${recognised.join(', ')}.`);
  if (reviewed.length) parts.push(`Checked by an operator, who watches the video (this can take a while): ${reviewed.join(', ')}.`);
  languageHint.textContent = parts.join(' ');
}

async function newConsent(language) {
  const res = await api('POST', '/consents', { language });
  if (res.status !== 201) return { error: res };
  history.replaceState(null, '', `/studio/consents/${encodeURIComponent(res.body.id)}`);
  return { consent: { ...res.body, status: 'created', name: null, verification: { steps: [] } } };
}

chooseForm.addEventListener('submit', async (e) => {
  e.preventDefault();
  chooseError.textContent = '';
  const name = chooseName.value.trim();
  if (!languageSelect.value) return void (chooseError.textContent = 'Choose a language.');
  if (!name) {
    chooseError.textContent = 'Write your full name: you say it in the statement.';
    return chooseName.focus();
  }
  chooseSubmit.disabled = true;
  try {
    const made = await newConsent(languageSelect.value);
    if (made.error) return showError(chooseError, made.error);
    recordName.value = name;
    startRecording(made.consent);
  } finally {
    chooseSubmit.disabled = false;
  }
});

// ---------------------------------------------------------------------------------------------
// 2. Read and record

/** The statement with the name (or a placeholder) where `[user name]` is, the name in bold. */
function renderStatement() {
  const [before, after = ''] = consent.text.split('[user name]');
  const name = document.createElement('strong');
  name.className = 'spoken-name';
  name.textContent = recordName.value.trim() || '[your name]';
  statementEl.replaceChildren(before, name, after);
}

function startRecording(rec) {
  consent = rec;
  heading.textContent = 'Record a consent';
  const lang = languages.find((l) => l.name === rec.language);
  if (lang) statementEl.lang = lang.code;
  passcodeEl.replaceChildren(...rec.passcode.map((w) => {
    const li = document.createElement('li');
    li.textContent = w;
    return li;
  }));
  if (lang) passcodeEl.lang = lang.code;
  renderStatement();
  expiresEl.replaceChildren(`Record and upload it before ${new Date(rec.expires_at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })} (30 minutes from when the statement was made).`);
  take = null;
  playback.hidden = true;
  preview.hidden = false;
  uploadBox.hidden = true;
  recordStatus.textContent = '';
  recordError.textContent = '';
  show({ camera: !recorder.stream, record: !!recorder.stream });
  showStep('record');
  $('record-heading').focus();
}

recordName.addEventListener('input', () => consent && renderStatement());
chooseName.addEventListener('input', () => void (chooseError.textContent = ''));

buttons.camera.addEventListener('click', async () => {
  recordError.textContent = '';
  buttons.camera.disabled = true;
  try {
    await recorder.open();
    cameraOff.hidden = true;
    show({ record: true });
    recordStatus.textContent = 'Camera and microphone on. Check that your face is in the picture, then start recording.';
    buttons.record.focus();
  } catch (err) {
    recordError.textContent = err.message;
  } finally {
    buttons.camera.disabled = false;
  }
});

buttons.record.addEventListener('click', async () => {
  recordError.textContent = '';
  if (!recordName.value.trim()) {
    recordError.textContent = 'Write your full name first: you say it in the statement.';
    return recordName.focus();
  }
  take = null;
  playback.hidden = true;
  playback.removeAttribute('src');
  preview.hidden = false;
  uploadBox.hidden = true;
  show({ stop: true });
  buttons.stop.disabled = true;
  buttons.stop.focus();
  try {
    const blob = await recorder.record({
      onCount: (n) => {
        countdown.hidden = n === 0;
        countdown.textContent = n ? String(n) : '';
        if (n) recordStatus.textContent = `Recording starts in ${n}…`;
        else {
          recordStatus.textContent = 'Recording. Read the statement now; press Stop when you have said the passcode.';
          recIndicator.hidden = false;
          buttons.stop.disabled = false;
        }
      },
      onTick: (s) => void (recTime.textContent = clock(s)),
    });
    recIndicator.hidden = true;
    take = blob;
    if (playback.src) URL.revokeObjectURL(playback.src);
    playback.src = URL.createObjectURL(blob);
    playback.hidden = false;
    preview.hidden = true;
    show({ rerecord: true, upload: true });
    recordStatus.textContent = `Your take is ${recTime.textContent} long. Watch it below, then upload it, or record again.`;
    if (!recorder.heardSound()) recordError.textContent = 'We barely heard anything in this take: check that your microphone is on and not muted before you upload.';
    buttons.upload.focus();
  } catch (err) {
    recIndicator.hidden = true;
    countdown.hidden = true;
    recordError.textContent = err.message;
    show({ camera: !recorder.stream, record: !!recorder.stream });
  }
});

buttons.stop.addEventListener('click', () => recorder.stop());

buttons.rerecord.addEventListener('click', () => {
  take = null;
  playback.hidden = true;
  preview.hidden = false;
  recordError.textContent = '';
  recordStatus.textContent = recorder.stream ? 'Ready to record again.' : '';
  show({ camera: !recorder.stream, record: !!recorder.stream });
  (recorder.stream ? buttons.record : buttons.camera).focus();
});

/** POST /videos with the take as its body, reporting progress: `{status, body}`. */
async function uploadTake(blob, onProgress) {
  const token = await getToken();
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/videos');
    xhr.setRequestHeader('authorization', `Bearer ${token}`);
    xhr.setRequestHeader('content-type', blob.type || 'application/octet-stream');
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => e.lengthComputable && onProgress(e.loaded / e.total));
    xhr.addEventListener('load', () => {
      let body = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        body = null;
      }
      resolve({ status: xhr.status, body });
    });
    xhr.addEventListener('error', () => resolve({ status: 0, body: { description: 'The upload stopped: the connection was lost. Check your connection and press Upload again.' } }));
    xhr.send(blob);
  });
}

buttons.upload.addEventListener('click', async () => {
  const name = recordName.value.trim();
  if (!name) {
    recordError.textContent = 'Write your full name first: the check listens for it.';
    return recordName.focus();
  }
  if (!take) return;
  recordError.textContent = '';
  show({});
  uploadBox.hidden = false;
  const progress = (f) => {
    uploadBar.value = Math.round(f * 100);
    uploadPercent.textContent = `${Math.round(f * 100)} %`;
  };
  progress(0);
  recordStatus.textContent = 'Uploading your video…';
  const up = await uploadTake(take, progress);
  if (up.status !== 201) {
    showError(recordError, up);
    show({ rerecord: true, upload: true });
    return;
  }
  progress(1);
  recordStatus.textContent = 'Uploaded. Starting the checks…';
  const res = await api('POST', `/consents/${encodeURIComponent(consent.id)}`, { name, source_url: up.body.url });
  if (res.status !== 200) {
    showError(recordError, res);
    // An expired or already-used statement cannot take this video: a new one can.
    show(res.status === 409 || res.body?.kind === 'ConsentExpiredError' ? {} : { rerecord: true, upload: true });
    if (res.status === 409 || res.body?.kind === 'ConsentExpiredError') showVerify({ ...consent, status: 'error', error: res.body });
    return;
  }
  recorder.close();
  cameraOff.hidden = false;
  showVerify(res.body);
});

// ---------------------------------------------------------------------------------------------
// 3. The checks, live

function fact(term, value) {
  const dt = document.createElement('dt');
  dt.textContent = term;
  const dd = document.createElement('dd');
  dd.textContent = value;
  facts.append(dt, dd);
}

function renderChecks(rec) {
  const measured = new Map((rec.verification?.steps ?? []).map((s) => [s.check, s]));
  const running = rec.status === 'validating' && !rec.verification?.review;
  let next = true;
  checksEl.replaceChildren(...CHECKS.map(({ check, title }) => {
    const li = document.createElement('li');
    li.dataset.check = check;
    const step = measured.get(check);
    const name = document.createElement('span');
    name.className = 'check-title';
    name.textContent = title;
    const state = document.createElement('span');
    state.className = 'check-state';
    const text = document.createElement('span');
    text.className = 'check-text';
    if (step) {
      const d = describeStep(step, rec);
      li.dataset.state = d.state;
      state.textContent = { passed: 'Passed', failed: 'Not passed', review: 'Operator' }[d.state];
      text.textContent = d.text;
    } else if (running && next) {
      li.dataset.state = 'running';
      state.textContent = 'Checking…';
      next = false;
    } else {
      li.dataset.state = rec.status === 'validating' || rec.status === 'created' ? 'waiting' : 'skipped';
      state.textContent = li.dataset.state === 'waiting' ? 'To check' : 'Not checked';
    }
    li.append(state, name, text);
    return li;
  }));
}

function renderOutcome(rec) {
  const o = outcomeOf(rec);
  outcomeBox.hidden = o.state === 'checking';
  outcomeBox.dataset.state = o.state;
  outcomeTitle.textContent = o.title;
  outcomeText.textContent = o.text;
  outcomeDetail.textContent = o.detail ? `Details: ${o.detail}` : '';
  recordAgain.hidden = !(o.state === 'refused' || o.state === 'expired');
  verifyHeading.textContent = o.state === 'checking' ? 'Checking your video' : `Your consent: ${o.title.toLowerCase()}`;
}

function showVerify(rec) {
  consent = rec;
  heading.textContent = rec.name ? `Consent of ${rec.name}` : 'Consent';
  facts.replaceChildren();
  if (rec.name) fact('Name', rec.name);
  fact('Language', rec.language.charAt(0).toUpperCase() + rec.language.slice(1));
  fact('Created', new Date(rec.created_at).toLocaleString());
  renderChecks(rec);
  renderOutcome(rec);
  showStep('verify');
  verifyHeading.focus();
  if (rec.status !== 'validating' || watching) return;
  watching = new AbortController();
  watch(`/consents/${encodeURIComponent(rec.id)}/events`, (r) => {
    consent = r;
    renderChecks(r);
    renderOutcome(r);
  }, { signal: watching.signal })
    .catch((err) => void (pageError.textContent = `Live progress stopped: ${err.message}. Reload the page to see where the checks are.`))
    .finally(() => void (watching = null));
}

recordAgain.addEventListener('click', async () => {
  recordAgain.disabled = true;
  try {
    const made = await newConsent(consent.language);
    if (made.error) return showError(pageError, made.error);
    pageStatus.textContent = 'A new statement with a new passcode: record it below.';
    recordName.value = consent.name ?? recordName.value;
    startRecording(made.consent);
  } finally {
    recordAgain.disabled = false;
  }
});

// ---------------------------------------------------------------------------------------------

async function start() {
  const id = app.dataset.consentId;
  await loadLanguages();
  if (!id) {
    showStep('choose');
    return;
  }
  const res = await api('GET', `/consents/${encodeURIComponent(id)}`);
  if (res.status !== 200) {
    showError(pageError, res);
    return;
  }
  if (res.body.status === 'created') startRecording(res.body);
  else showVerify(res.body);
}

start().catch((err) => void (pageError.textContent = err.message));
