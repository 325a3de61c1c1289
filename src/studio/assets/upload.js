// A resumable upload of one file to the public API's tus endpoint (/videos/uploads,
// docs/videos.md), for any studio page: the file goes in parts (8 MiB PATCHes by default),
// each sent with XMLHttpRequest so the page sees its bytes leave; when a PATCH fails (the
// connection dropped, the server restarted, another request was still writing) the upload
// asks the server how many bytes it has (HEAD), waits a little longer each time, and goes on
// from there. Bytes the server already has are never sent again. The bearer token comes from
// api.js at each request; nothing is kept in web storage.
import { getToken } from './api.js';

export const TUS_VERSION = '1.0.0';
export const DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024;
/** Waits between attempts after a failure: 1 s, 2 s, 4 s … up to 30 s. */
const BACKOFF_MS = [1000, 2000, 4000, 8000, 15000, 30000];
/** Failures in a row (no byte gained between them) before the upload gives up. */
const MAX_FAILURES = 12;
/** The speed is the bytes sent over about this long. */
const SPEED_WINDOW_MS = 5000;

/** An upload that cannot go on: `status` and `kind` are the API's when it answered. */
export class UploadError extends Error {
  constructor(message, { status = 0, kind } = {}) {
    super(message);
    this.name = 'UploadError';
    this.status = status;
    this.kind = kind;
  }
}

const base64 = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

/** tus metadata: `key base64value` pairs. The file's name, type and modification time, so a later page can tell it is the same file. */
export function uploadMetadata(file) {
  const pairs = { filename: file.name, filetype: file.type || 'application/octet-stream', lastmodified: String(file.lastModified) };
  return Object.entries(pairs).map(([k, v]) => `${k} ${base64(v)}`).join(',');
}

/** The description of an API error body, else a sentence about the status. */
function describe(status, text) {
  try {
    const body = JSON.parse(text);
    if (typeof body?.description === 'string') return { message: body.description, kind: body.kind };
  } catch {
    // not JSON
  }
  return { message: `The service answered ${status}.` };
}

/** One request with the bearer token (fetch: no body to watch). */
async function call(method, path, headers = {}) {
  const res = await fetch(path, { method, headers: { authorization: `Bearer ${await getToken()}`, 'tus-resumable': TUS_VERSION, ...headers } });
  const text = method === 'HEAD' ? '' : await res.text();
  return { res, text };
}

/** Whether a refusal is worth another try: a dropped connection, a busy upload, the service briefly away. */
const retryable = (status) => status === 0 || status === 409 || status === 423 || status === 429 || status >= 500;

/** Bytes per second over the last few seconds: `sample(bytes)` as they go, `rate()` to read. */
function speedometer(now = () => performance.now()) {
  const samples = [];
  return {
    sample(bytes) {
      const t = now();
      samples.push([t, bytes]);
      while (samples.length > 2 && t - samples[0][0] > SPEED_WINDOW_MS) samples.shift();
    },
    rate() {
      if (samples.length < 2) return 0;
      const [t0, b0] = samples[0];
      const [t1, b1] = samples[samples.length - 1];
      return t1 > t0 ? ((b1 - b0) * 1000) / (t1 - t0) : 0;
    },
    reset() {
      samples.length = 0;
    },
  };
}

const wait = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(signal.reason);
    }, { once: true });
  });

/**
 * Uploads `file` resumably and answers the video the API made of it (`{id, url, …}`).
 *
 * - `path`: an upload already started for this file (`/videos/uploads/upl_…`), to go on with;
 *   a new one is made otherwise (`onCreated(path)` says which).
 * - `onProgress({sent, total, bytesPerSecond})`: as bytes leave, and after each answer.
 * - `onRetry({attempt, inMs, offset, known, reason})`: a failure, when the next try comes, and
 *   the bytes the server has (`known`: it could be asked; else the last offset seen).
 * - `onFinishing()`: every byte is in; the server checks the video.
 * - `signal`: aborts it (the upload stays on the server, resumable, until deleted or expired).
 */
export async function resumableUpload(file, { path, chunkBytes = DEFAULT_CHUNK_BYTES, onCreated, onProgress, onRetry, onFinishing, signal } = {}) {
  const total = file.size;
  const speed = speedometer();
  const progress = (sent) => {
    speed.sample(sent);
    onProgress?.({ sent, total, bytesPerSecond: speed.rate() });
  };

  if (!path) {
    const { res, text } = await call('POST', '/videos/uploads', { 'upload-length': String(total), 'upload-metadata': uploadMetadata(file) });
    if (res.status !== 201) throw new UploadError(describe(res.status, text).message, { status: res.status, kind: describe(res.status, text).kind });
    // The id, not Location: Location carries the public URL, which a proxy may name differently from this page's origin.
    path = `/videos/uploads/${encodeURIComponent(JSON.parse(text).id)}`;
    onCreated?.(path);
  }

  /** Where the server is: `{offset, status, video?, error?}`. */
  async function state() {
    const { res, text } = await call('GET', path);
    if (res.status !== 200) {
      const { message, kind } = describe(res.status, text);
      throw new UploadError(res.status === 404 ? 'The upload is gone from the server (it expired or was cancelled): start again.' : message, { status: res.status, kind });
    }
    const body = JSON.parse(text);
    if (body.length !== total) throw new UploadError('The upload on the server is of another file: start again.');
    return body;
  }

  /** One PATCH of `blob` at `offset`; answers the new offset. Rejects with an UploadError carrying the status (0: no answer). */
  async function patch(offset, blob) {
    const token = await getToken();
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      const abort = () => xhr.abort();
      signal?.addEventListener('abort', abort, { once: true });
      const done = () => signal?.removeEventListener('abort', abort);
      xhr.open('PATCH', path);
      xhr.setRequestHeader('authorization', `Bearer ${token}`);
      xhr.setRequestHeader('tus-resumable', TUS_VERSION);
      xhr.setRequestHeader('upload-offset', String(offset));
      xhr.setRequestHeader('content-type', 'application/offset+octet-stream');
      xhr.upload.addEventListener('progress', (e) => progress(offset + e.loaded));
      if (offset + blob.size === total) xhr.upload.addEventListener('load', () => onFinishing?.());
      xhr.addEventListener('load', () => {
        done();
        if (xhr.status === 204) return resolve(Number(xhr.getResponseHeader('upload-offset')));
        const { message, kind } = describe(xhr.status, xhr.responseText);
        reject(new UploadError(message, { status: xhr.status, kind }));
      });
      xhr.addEventListener('error', () => {
        done();
        reject(new UploadError('The connection dropped.', { status: 0 }));
      });
      xhr.addEventListener('abort', () => {
        done();
        reject(signal?.reason ?? new DOMException('The upload was stopped.', 'AbortError'));
      });
      xhr.send(blob);
    });
  }

  /** The server's offset into `offset` (and its state into `current`); false when it could not be asked. */
  async function whereItIs() {
    try {
      current = await state();
      offset = current.offset;
      progress(offset);
      return true;
    } catch (err) {
      if (!(err instanceof UploadError) || !retryable(err.status)) throw err;
      return false;
    }
  }

  let current = await state();
  let offset = current.offset;
  let failures = 0;
  progress(offset);
  while (current.status !== 'done') {
    if (current.status === 'failed') throw new UploadError(current.error?.description ?? 'The server could not read the video.', { kind: current.error?.kind });
    try {
      if (signal?.aborted) throw signal.reason;
      // An upload whose bytes are all in but not checked (a crash at that moment): a PATCH of no bytes checks it again.
      const blob = file.slice(offset, Math.min(total, offset + chunkBytes));
      const next = await patch(offset, blob);
      if (next > offset) failures = 0;
      offset = next;
      progress(offset);
      if (offset === total) current = await state();
    } catch (err) {
      if (!(err instanceof UploadError) || !retryable(err.status)) throw err;
      failures += 1;
      if (failures > MAX_FAILURES) throw new UploadError(`The upload stopped at ${offset} of ${total} bytes after ${MAX_FAILURES} failed tries: ${err.message}`, { status: err.status, kind: err.kind });
      const inMs = BACKOFF_MS[Math.min(failures - 1, BACKOFF_MS.length - 1)];
      // Ask where the server is (a dropped PATCH keeps every byte that arrived), now and, if it
      // could not be asked, again after the pause; the next PATCH starts there.
      let known = await whereItIs();
      speed.reset();
      onRetry?.({ attempt: failures, inMs, offset, known, reason: err.message });
      await wait(inMs, signal);
      if (!known) known = await whereItIs();
    }
  }
  progress(total);
  return current.video;
}

/**
 * An upload of this same file started earlier (in a page since reloaded, or another tab),
 * found on the server by the metadata it was created with: its name, size and modification
 * time. Answers `{path, offset, length, status, video?}` of the newest one not failed, or null.
 * The server keeps the list (GET /videos/uploads), so nothing is kept in the browser.
 */
export async function findUpload(file) {
  const { res, text } = await call('GET', '/videos/uploads');
  if (res.status !== 200) return null;
  const same = JSON.parse(text).uploads.find((u) =>
    u.status !== 'failed' && u.length === file.size && u.metadata?.filename === file.name && u.metadata?.lastmodified === String(file.lastModified));
  return same ? { ...same, path: `/videos/uploads/${encodeURIComponent(same.id)}` } : null;
}

/** Cancels an upload on the server and deletes its bytes (tus termination); never throws. */
export async function cancelUpload(path) {
  try {
    await call('DELETE', path);
  } catch {
    // It expires on its own.
  }
}

/** Bytes as a person reads them: 812 KB, 12.3 MB, 1.42 GB. */
export function formatBytes(n) {
  if (n < 1000) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n;
  let i = -1;
  do {
    v /= 1000;
    i += 1;
  } while (v >= 1000 && i < units.length - 1);
  return `${v < 10 ? v.toFixed(2) : v < 100 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}
