// The new-avatar page: the person's verified consents not used yet (GET /consents?status=done),
// the presenter's name and voice, the footage uploaded resumably (upload.js over
// /videos/uploads), then POST /clips/avatars with the uploaded video's URL, and on to the
// avatar's own page. Text reaches the page through textContent only.
import { api, showError } from './api.js';
import { allPages } from './paging.js';
import { UploadError, cancelUpload, findUpload, formatBytes, resumableUpload } from './upload.js';

const $ = (id) => document.getElementById(id);
const form = $('avatar-form');
const consentSelect = $('consent');
const nameInput = $('avatar-name');
const fileInput = $('footage');
const formError = $('avatar-form-error');
const submit = $('avatar-submit');
const consentsStatus = $('consents-status');
const noConsent = $('no-consent');
const panel = $('upload-panel');
const bar = $('upload-progress');
const figures = $('upload-figures');
const uploadStatus = $('upload-status');
const cancelButton = $('upload-cancel');
const resumeNote = $('footage-resume');

/** The consents offered, by id. */
const consents = new Map();
/** The upload of this page: its file and server path, and the video once it is in (a failed create does not upload again). */
let upload = null;
let controller = null;
/** Set while the upload waits to try again after a failure: where it stood. */
let retrying = null;

/** Consents verified and not used, newest first (pages of 100 until they end). */
async function loadConsents() {
  const { items, failed } = await allPages('/consents?status=done&limit=100', 'consents');
  if (failed) {
    consentsStatus.textContent = '';
    showError(formError, failed);
    form.hidden = false;
    return;
  }
  const found = items.filter((c) => c.status === 'done' && !c.used_by);
  consentsStatus.textContent = '';
  if (!found.length) {
    noConsent.hidden = false;
    return;
  }
  for (const c of found) {
    consents.set(c.id, c);
    const option = document.createElement('option');
    option.value = c.id;
    const when = c.verified_at ? new Date(c.verified_at).toLocaleDateString() : new Date(c.created_at).toLocaleDateString();
    const language = c.language ? c.language[0].toUpperCase() + c.language.slice(1) : '';
    option.textContent = `${c.name ?? 'no name'} · ${language} · verified ${when}`;
    consentSelect.append(option);
  }
  form.hidden = false;
  fillName();
}

/** The name said in the chosen consent, unless the person typed another. */
function fillName() {
  const c = consents.get(consentSelect.value);
  if (c?.name && (!nameInput.value || nameInput.dataset.filled === 'yes')) {
    nameInput.value = c.name;
    nameInput.dataset.filled = 'yes';
  }
}

function fieldError(input, text) {
  formError.textContent = text;
  input.setAttribute('aria-invalid', 'true');
  input.focus();
}

function clearErrors() {
  formError.textContent = '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
}

function showProgress({ sent, total, bytesPerSecond }) {
  const percent = total ? Math.floor((sent / total) * 100) : 0;
  bar.max = total;
  bar.value = sent;
  const rate = bytesPerSecond > 0 ? ` · ${formatBytes(Math.round(bytesPerSecond))}/s` : '';
  const left = bytesPerSecond > 0 && sent < total ? ` · about ${duration((total - sent) / bytesPerSecond)} left` : '';
  figures.textContent = `${formatBytes(sent)} of ${formatBytes(total)} · ${percent} %${rate}${left}`;
}

function duration(seconds) {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  const m = Math.round(seconds / 60);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

const sameFile = (a, b) => a && b && a.name === b.name && a.size === b.size && a.lastModified === b.lastModified;

function lockForm(locked) {
  for (const el of form.elements) el.disabled = locked;
}

async function create(event) {
  event.preventDefault();
  clearErrors();
  const consentId = consentSelect.value;
  const name = nameInput.value.trim();
  const file = fileInput.files[0];
  if (!consentId) return fieldError(consentSelect, 'Choose a consent.');
  if (!name) return fieldError(nameInput, 'Give the presenter\'s name: the name said in the consent video.');
  if (!file) return fieldError(fileInput, 'Choose the footage file.');
  if (!file.size) return fieldError(fileInput, 'That file is empty: choose the footage file.');

  lockForm(true);
  retrying = null;
  try {
    if (!upload || !sameFile(upload.file, file)) upload = { file, path: undefined, video: undefined };
    if (!upload.video) {
      panel.hidden = false;
      cancelButton.hidden = false;
      uploadStatus.textContent = upload.path ? 'Carrying on with the upload…' : 'Starting the upload…';
      controller = new AbortController();
      upload.video = await resumableUpload(file, {
        path: upload.path,
        signal: controller.signal,
        onCreated: (path) => {
          upload.path = path;
          uploadStatus.textContent = 'Uploading…';
        },
        onProgress: (p) => {
          showProgress(p);
          if (retrying) {
            // The first news after the pause: the server's offset (when it was not known), or the next part leaving from it.
            uploadStatus.textContent = `Connected again: carrying on from ${formatBytes(retrying.known ? retrying.offset : p.sent)}.`;
            retrying = null;
          }
        },
        onRetry: ({ inMs, attempt, offset, known }) => {
          retrying = { offset, known };
          const where = known ? `The service has ${formatBytes(offset)}` : 'The service cannot be reached just now';
          uploadStatus.textContent = `The connection dropped. ${where}; trying again in ${Math.round(inMs / 1000)} s (try ${attempt}). Nothing that arrived is sent again.`;
        },
        onFinishing: () => {
          uploadStatus.textContent = 'Every byte is in. The service is checking that the file is a video…';
        },
      });
      cancelButton.hidden = true;
      uploadStatus.textContent = `Footage uploaded: ${formatBytes(file.size)}, ${Math.round(upload.video.duration / 6) / 10} min.`;
    }
    uploadStatus.textContent = 'Creating the avatar…';
    const res = await api('POST', '/clips/avatars', {
      source_url: upload.video.url,
      name,
      gender: form.elements.gender.value,
      consent_id: consentId,
      config: { is_greenscreen: $('greenscreen').checked },
    });
    if (res.status !== 201) {
      uploadStatus.textContent = 'The footage is uploaded; the avatar was not created.';
      showError(formError, res);
      formError.focus();
      return;
    }
    uploadStatus.textContent = 'Avatar created: its checks start now.';
    location.assign(`/studio/avatars/${encodeURIComponent(res.body.id)}`);
  } catch (err) {
    cancelButton.hidden = true;
    if (err?.name === 'AbortError') {
      uploadStatus.textContent = 'Upload cancelled.';
      return;
    }
    if (err instanceof UploadError && /gone from the server|another file/.test(err.message)) upload = null;
    uploadStatus.textContent = '';
    formError.textContent = err instanceof UploadError
      ? `The footage could not be uploaded: ${err.message}`
      : `Something went wrong: ${err?.message ?? err}`;
    formError.focus();
  } finally {
    controller = null;
    lockForm(false);
  }
}

async function cancel() {
  controller?.abort(new DOMException('The upload was cancelled.', 'AbortError'));
  if (upload?.path && !upload.video) await cancelUpload(upload.path);
  upload = null;
  bar.value = 0;
  figures.textContent = '';
  panel.hidden = true;
  resumeNote.textContent = 'Upload cancelled: what was sent is deleted from the server.';
  fileInput.focus();
}

/** A file chosen: when an upload of it was started before (this page reloaded, say), carry on with that one. */
async function fileChosen() {
  resumeNote.textContent = '';
  const file = fileInput.files[0];
  if (!file || sameFile(upload?.file, file)) return;
  upload = null;
  const earlier = await findUpload(file).catch(() => null);
  if (!earlier || fileInput.files[0] !== file) return;
  upload = { file, path: earlier.path, video: earlier.status === 'done' ? earlier.video : undefined };
  resumeNote.textContent = upload.video
    ? `This file was uploaded earlier (${formatBytes(file.size)}): it is used as it is, nothing is sent again.`
    : `You started uploading this file earlier: ${formatBytes(earlier.offset)} of ${formatBytes(earlier.length)} are on the server (${Math.floor((earlier.offset / earlier.length) * 100)} %). The upload carries on from there.`;
}

consentSelect.addEventListener('change', fillName);
fileInput.addEventListener('change', fileChosen);
nameInput.addEventListener('input', () => {
  nameInput.dataset.filled = 'no';
});
form.addEventListener('submit', create);
cancelButton.addEventListener('click', cancel);
loadConsents().catch((err) => {
  consentsStatus.textContent = '';
  formError.textContent = err.message;
  form.hidden = false;
});
