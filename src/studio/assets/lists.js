// A list of renders (clips, talks or animations): GET /{kind}?status=&token=, newest first,
// each row a picture, a link to its page, its status and when it was made; the status filter
// reloads the list (and is kept in the address, so the filtered list can be bookmarked);
// "Show more" follows the page token. Text goes in with textContent only.
import { api } from './api.js';
import { cell, emptyRow, link, statusLines, timeElement } from './dom.js';
import { showMore } from './paging.js';
import { watch } from './live.js';

const $ = (id) => document.getElementById(id);
const filter = $('list-filter');
const kind = filter.dataset.kind;
const select = $('status-filter');
const rows = $('list-rows');
const table = $('list');
const status = $('list-status');
const error = $('list-error');
const { fail } = statusLines(status, error);

const LABELS = { created: 'Waiting', started: 'Rendering', done: 'Done', error: 'Failed' };
const ONE = { clips: 'clip', talks: 'talk', animations: 'animation' }[kind];
/** Unfinished rows followed live at once, at most (the API allows a person 20 event streams). */
const MAX_FOLLOWED = 5;
let thumbnails;
/** Stops following the rows of the list shown before (a new filter, say). */
let following = new AbortController();
let followed = 0;
/** Which load is current: an older one answering late is dropped. */
let generation = 0;

/** The presenters' thumbnails by id, for the clips' pictures (one call). */
async function presenterThumbnails() {
  const res = await api('GET', '/clips/presenters?limit=100');
  return new Map(res.status === 200 ? res.body.presenters.map((p) => [p.presenter_id, p.thumbnail_url]) : []);
}

/** A picture of the record: a clip's presenter, a talk's or an animation's photo when mimic serves it. */
function pictureOf(r) {
  const url = kind === 'clips' ? thumbnails?.get(r.presenter_id) : r.source_url;
  if (!url) return null;
  try {
    if (new URL(url, location.href).origin !== location.origin) return null;
  } catch {
    return null;
  }
  const img = document.createElement('img');
  img.src = url;
  img.alt = '';
  img.width = 48;
  img.height = 48;
  img.loading = 'lazy';
  return img;
}

function row(r) {
  const tr = document.createElement('tr');
  tr.dataset.id = r.id;
  tr.dataset.status = r.status;
  const picture = pictureOf(r);
  const badge = document.createElement('span');
  badge.className = `badge ${r.status}`;
  badge.textContent = LABELS[r.status] ?? r.status;
  tr.append(cell('', ...(picture ? [picture] : [])), cell(`${ONE[0].toUpperCase()}${ONE.slice(1)}`, link(`/studio/${kind}/${encodeURIComponent(r.id)}`, r.name || r.id)), cell('Status', badge), cell('Created', timeElement(r.created_at)));
  return tr;
}

/** Keeps an unfinished row's status up to date while the page is open (GET /{kind}/{id}/events). */
function follow(tr) {
  if (followed >= MAX_FOLLOWED || !['created', 'started'].includes(tr.dataset.status)) return;
  followed++;
  const { signal } = following;
  watch(`/${kind}/${encodeURIComponent(tr.dataset.id)}/events`, (r) => {
    if (signal.aborted || tr.dataset.status === r.status) return;
    const fresh = row(r);
    tr.replaceChildren(...fresh.childNodes);
    tr.dataset.status = r.status;
  }, { signal })
    .catch(() => {})
    .finally(() => {
      if (!signal.aborted) followed--;
    });
}

async function load(token) {
  const mine = ++generation;
  const query = new URLSearchParams({ limit: '20' });
  if (select.value) query.set('status', select.value);
  if (token) query.set('token', token);
  table.setAttribute('aria-busy', 'true');
  if (kind === 'clips') thumbnails ??= await presenterThumbnails();
  const res = await api('GET', `/${kind}?${query}`);
  if (mine !== generation) return;
  table.setAttribute('aria-busy', 'false');
  if (res.status !== 200) return fail(res);
  error.textContent = '';
  if (!token) {
    following.abort();
    following = new AbortController();
    followed = 0;
    rows.replaceChildren();
  }
  for (const r of res.body[kind]) {
    const tr = row(r);
    rows.append(tr);
    follow(tr);
  }
  if (!rows.querySelector('tr[data-id]')) rows.replaceChildren(emptyRow(4, select.value ? `No ${kind} with this status.` : `No ${kind} yet.`));
  const shown = rows.querySelectorAll('tr[data-id]').length;
  paged(res.body.token);
  status.textContent = shown === 0 ? '' : `${shown} ${shown === 1 ? ONE : kind} shown${select.value ? ` (${LABELS[select.value].toLowerCase()})` : ''}${res.body.token ? ', more below' : ''}.`;
}
const paged = showMore($('list-more'), (token) => load(token).catch(fail));

filter.addEventListener('submit', (e) => e.preventDefault());
select.addEventListener('change', () => {
  const url = new URL(location.href);
  if (select.value) url.searchParams.set('status', select.value);
  else url.searchParams.delete('status');
  history.replaceState(null, '', url);
  load().catch(fail);
});
addEventListener('pagehide', () => following.abort());
load().catch(fail);
