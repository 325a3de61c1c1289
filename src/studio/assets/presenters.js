// The presenters gallery: GET /clips/presenters (the built-in ones, then the person's own),
// each a card with its still, its talking preview (muted; it plays while the pointer is on the
// card or the keyboard focus is in it) and "Make a clip". Text goes in with textContent only.
import { api } from './api.js';
import { statusLines } from './dom.js';
import { pagePath, showMore } from './paging.js';

const $ = (id) => document.getElementById(id);
const gallery = $('presenters');
const status = $('presenters-status');
const { fail } = statusLines(status, $('presenters-error'));

/** Plays the card's talking preview from the start; its source is set at the first play, so the page loads no video it does not show. */
function play(video, url) {
  if (!video.getAttribute('src')) video.src = url;
  video.closest('.presenter-card').classList.add('playing');
  video.play().catch(() => {
    // The preview may still be rendering (its URL waits for it), or was stopped meanwhile: the still stays.
  });
}

function stop(video) {
  video.pause();
  video.closest('.presenter-card').classList.remove('playing');
}

function card(p) {
  const li = document.createElement('li');
  li.className = 'presenter-card';
  li.dataset.presenterId = p.presenter_id;
  const media = document.createElement('div');
  media.className = 'presenter-media';
  const video = document.createElement('video');
  video.muted = true;
  video.loop = true;
  video.playsInline = true;
  video.preload = 'none';
  video.poster = p.preview_url;
  // The name and the link say everything; the preview is a picture of it.
  video.setAttribute('aria-hidden', 'true');
  video.tabIndex = -1;
  media.append(video);
  const name = document.createElement('h2');
  name.textContent = p.name;
  const about = document.createElement('p');
  about.className = 'hint';
  const own = p.owner_id !== 'mimic';
  about.textContent = `${own ? 'Yours' : 'Built-in'}\nVoice: ${p.voice.voice_id}`;
  const make = document.createElement('a');
  make.className = 'button';
  make.href = `/studio/clips/new?presenter_id=${encodeURIComponent(p.presenter_id)}`;
  make.textContent = 'Make a clip';
  make.setAttribute('aria-label', `Make a clip with ${p.name}`);
  li.append(media, name, about, make);
  li.addEventListener('mouseenter', () => play(video, p.talking_preview_url));
  li.addEventListener('mouseleave', () => li.contains(document.activeElement) || stop(video));
  li.addEventListener('focusin', () => play(video, p.talking_preview_url));
  li.addEventListener('focusout', (e) => li.contains(e.relatedTarget) || li.matches(':hover') || stop(video));
  return li;
}

async function load(token) {
  const res = await api('GET', pagePath('/clips/presenters?limit=100', token));
  gallery.setAttribute('aria-busy', 'false');
  if (res.status !== 200) return fail(res);
  for (const p of res.body.presenters) gallery.append(card(p));
  const count = gallery.children.length;
  status.textContent = `${count} presenter${count === 1 ? '' : 's'}.`;
  paged(res.body.token);
}
const paged = showMore($('presenters-more'), load);

load().catch(fail);
