// The page of one render (a clip, a talk or an animation): its record followed live
// (watch() on GET /{kind}/{id}/events), the video as it renders from pending_url (an HLS
// playlist, played by the browser itself where it can), the progress, then the result to play
// and download, or the reason it failed. Text goes in with textContent only.
import { watch } from './live.js';
import { timeElement } from './dom.js';
import { api } from './api.js';

const $ = (id) => document.getElementById(id);
const section = $('render');
const kind = section.dataset.kind;
const id = section.dataset.id;
const one = { clips: 'clip', talks: 'talk', animations: 'animation' }[kind];
const heading = $('render-state');
const status = $('render-status');
const error = $('render-error');
const progress = $('render-progress');
const live = $('render-live');
const liveNote = $('render-live-note');
const result = $('render-result');
const download = $('render-download');
const again = $('render-again');
const facts = $('render-facts');
const title = $('render-title');

const STATES = { created: 'Waiting to start', started: 'Rendering', done: 'Done', error: 'Failed' };
/** Media Source Extensions: hls.js plays HLS through them (Chromium's own HLS player stalls on a playlist that is still growing). */
const hasMse = typeof window.MediaSource === 'function' || typeof window.ManagedMediaSource === 'function';
/** Without them (an old iPhone), the browser's own HLS player, where there is one. */
const playsHlsNatively = live.canPlayType('application/vnd.apple.mpegurl') !== '';
let lastStatus;
let latest;
/** A clip's presenter by name (GET /clips/presenters/{id}), once; its id until then, or when it is gone. */
const presenterNames = new Map();
/** The hls.js player of the live video, while there is one. */
let hls;
let liveUrl;

function fact(label, ...value) {
  const dt = document.createElement('dt');
  dt.textContent = label;
  const dd = document.createElement('dd');
  dd.append(...value);
  facts.append(dt, dd);
}

function showFacts(r) {
  facts.replaceChildren();
  if (r.name) fact('Name', r.name);
  if (r.presenter_id) fact('Presenter', presenterNames.get(r.presenter_id) ?? r.presenter_id);
  const voice = r.metadata?.voice;
  if (voice) fact('Voice', `${voice.voice_id} (${voice.type})${voice.fallback ? `, standing in for ${voice.fallback.requested.voice_id}: ${voice.fallback.reason}` : ''}`);
  if (r.script?.type === 'text') fact('Script', r.script.input.length > 300 ? `${r.script.input.slice(0, 300)}…` : r.script.input);
  if (r.script?.type === 'audio') fact('Script', 'an audio file');
  fact('Created', timeElement(r.created_at));
  if (r.completed_at) fact('Finished', timeElement(r.completed_at));
  if (typeof r.duration === 'number') fact('Length', `${r.duration.toFixed(1)} s`);
  fact('Credits', String(r.credits ?? r.cost ?? 0));
}

function showProgress(r) {
  const p = r.progress;
  progress.hidden = !(r.status === 'started' && p && p.frames_total > 0);
  if (progress.hidden) return '';
  progress.max = p.frames_total;
  progress.value = p.frames_done;
  return ` frame ${p.frames_done} of ${p.frames_total} (${Math.floor((100 * p.frames_done) / p.frames_total)} %)`;
}

/**
 * Plays the growing playlist with hls.js (loaded on first use, from mimic like every script):
 * from its first second, following it as segments are added. Its worker is off: the CSP
 * allows no worker from a blob. A fatal error (the playlist still empty, say) starts it over
 * a moment later, while the render goes on.
 */
async function playWithHlsJs(url) {
  const { default: Hls } = await import('./hls.js');
  if (!Hls.isSupported() || liveUrl !== url) return false;
  hls?.destroy();
  hls = new Hls({ enableWorker: false, startPosition: 0, manifestLoadingMaxRetry: 30, levelLoadingMaxRetry: 30 });
  hls.on(Hls.Events.ERROR, (_event, data) => {
    if (!data.fatal) return;
    hls?.destroy();
    hls = undefined;
    setTimeout(() => {
      if (lastStatus === 'started' && liveUrl === url) playWithHlsJs(url).catch(() => {});
    }, 1000);
  });
  hls.loadSource(url);
  hls.attachMedia(live);
  live.dataset.player = 'hls.js';
  live.play().catch(() => {});
  return true;
}

function showLive(r) {
  if (r.status !== 'started' || !r.pending_url) return;
  // Set once: each record signs the playlist anew, and a new source would start the player over.
  if (liveUrl) return;
  liveUrl = r.pending_url;
  live.hidden = false;
  liveNote.textContent = 'The video as it renders, muted; the finished one plays with sound.';
  liveNote.hidden = false;
  const played = hasMse ? playWithHlsJs(liveUrl) : Promise.resolve(false);
  played
    .catch(() => false)
    .then((ok) => {
      if (ok) return;
      if (playsHlsNatively) {
        live.src = liveUrl;
        live.dataset.player = 'native';
        live.play().catch(() => {});
        return;
      }
      live.hidden = true;
      liveNote.textContent = 'This browser cannot play the video while it renders; it appears here when it is done.';
    });
}

function stopLive() {
  hls?.destroy();
  hls = undefined;
  live.pause();
  live.hidden = true;
  liveNote.hidden = true;
}

function showDone(r) {
  stopLive();
  progress.hidden = true;
  if (!r.result_url) return;
  if (result.getAttribute('src') !== r.result_url && !result.getAttribute('src')) result.src = r.result_url;
  result.hidden = false;
  download.href = r.result_url;
  download.setAttribute('download', `${id}.${(r.config?.result_format ?? 'mp4').replace(/^\./, '')}`);
  download.hidden = false;
  if (again) showAgain(r);
}

/** "Make another" with the same presenter. */
function showAgain(r) {
  if (r.presenter_id) again.href = `/studio/clips/new?presenter_id=${encodeURIComponent(r.presenter_id)}`;
  again.hidden = false;
}

async function namePresenter(id) {
  presenterNames.set(id, id);
  const res = await api('GET', `/clips/presenters/${encodeURIComponent(id)}`);
  if (res.status !== 200 || !res.body.presenters[0]) return;
  presenterNames.set(id, res.body.presenters[0].name);
  if (latest) showFacts(latest);
}

function show(r) {
  latest = r;
  if (r.presenter_id && !presenterNames.has(r.presenter_id)) namePresenter(r.presenter_id).catch(() => {});
  title.textContent = r.name ? `${one[0].toUpperCase()}${one.slice(1)}: ${r.name}` : `${one[0].toUpperCase()}${one.slice(1)}`;
  heading.textContent = STATES[r.status] ?? r.status;
  section.dataset.status = r.status;
  const frames = showProgress(r);
  showFacts(r);
  if (r.status === 'started') {
    status.textContent = `Rendering:${frames || ' starting'}.`;
    showLive(r);
  } else if (r.status === 'created') {
    status.textContent = `Waiting for its turn to render.`;
  } else if (r.status === 'done') {
    status.textContent = `The ${one} is ready: play it or download it.`;
    showDone(r);
  } else if (r.status === 'error') {
    stopLive();
    progress.hidden = true;
    status.textContent = '';
    error.textContent = r.error?.description ?? `The ${one} could not be made.`;
    if (again) showAgain(r);
  } else {
    status.textContent = '';
  }
  // A final state moves the focus to the heading that says it, once, so a screen reader hears it.
  if (lastStatus && lastStatus !== r.status && (r.status === 'done' || r.status === 'error')) heading.focus();
  lastStatus = r.status;
}

const stop = new AbortController();
addEventListener('pagehide', () => stop.abort());
watch(`/${kind}/${encodeURIComponent(id)}/events`, show, { signal: stop.signal })
  .then((ended) => {
    if (ended !== 'deleted') return;
    stopLive();
    heading.textContent = 'Deleted';
    status.textContent = `This ${one} has been deleted.`;
  })
  .catch((err) => {
    if (stop.signal.aborted) return;
    status.textContent = '';
    heading.textContent = 'Not found';
    error.textContent = err?.status === 404 ? `There is no ${one} ${id} of yours.` : (err?.message ?? String(err));
  });
