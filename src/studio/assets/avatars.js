// The avatars page: the person's avatars, newest first, with their status (GET /clips/avatars),
// each a link to its own page. Text reaches the page through textContent only.
import { api } from './api.js';
import { cell, emptyRow, fillRows, link, statusLines, timeElement } from './dom.js';
import { pagePath, showMore } from './paging.js';

const $ = (id) => document.getElementById(id);
const rows = $('avatars-rows');
const { fail } = statusLines(null, $('avatars-error'));

const STATUS = {
  created: 'Waiting to start',
  validating: 'Checking the footage',
  started: 'Training',
  done: 'Ready',
  error: 'Failed',
  rejected: 'Refused',
};

function avatarRow(a) {
  const tr = document.createElement('tr');
  tr.dataset.avatarId = a.id;
  const badge = document.createElement('span');
  badge.className = `badge ${a.status}`;
  badge.textContent = STATUS[a.status] ?? a.status;
  if (a.status === 'started' && a.progress?.total) badge.textContent += ` · ${Math.floor((a.progress.done / a.progress.total) * 100)} %`;
  if (a.status === 'validating') badge.textContent += ` · ${a.checks.length} of 8 checks`;
  tr.append(cell('Name', link(`/studio/avatars/${encodeURIComponent(a.id)}`, a.name)), cell('Status', badge), cell('Created', timeElement(a.created_at)));
  return tr;
}

function noAvatars() {
  return emptyRow(3, 'No avatars yet. ', link('/studio/avatars/new', 'Make your first avatar'), '.');
}

async function load(token) {
  const res = await api('GET', pagePath('/clips/avatars?limit=50', token));
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return fail(res);
  fillRows(rows, res.body.avatars, avatarRow, noAvatars, token);
  paged(res.body.token);
}
const paged = showMore($('avatars-more'), load);

load().catch(fail);
