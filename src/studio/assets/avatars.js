// The avatars page: the person's avatars, newest first, with their status (GET /clips/avatars),
// each a link to its own page. Text reaches the page through textContent only.
import { api, showError } from './api.js';
import { cell, timeElement } from './dom.js';

const $ = (id) => document.getElementById(id);
const rows = $('avatars-rows');
const error = $('avatars-error');
const more = $('avatars-more');

const STATUS = {
  created: 'Waiting to start',
  validating: 'Checking the footage',
  started: 'Training',
  done: 'Ready',
  error: 'Failed',
  rejected: 'Refused',
};

let nextToken;

function avatarRow(a) {
  const tr = document.createElement('tr');
  tr.dataset.avatarId = a.id;
  const link = document.createElement('a');
  link.href = `/studio/avatars/${encodeURIComponent(a.id)}`;
  link.textContent = a.name;
  const badge = document.createElement('span');
  badge.className = `badge ${a.status}`;
  badge.textContent = STATUS[a.status] ?? a.status;
  if (a.status === 'started' && a.progress?.total) badge.textContent += ` · ${Math.floor((a.progress.done / a.progress.total) * 100)} %`;
  if (a.status === 'validating') badge.textContent += ` · ${a.checks.length} of 8 checks`;
  tr.append(cell('Name', link), cell('Status', badge), cell('Created', timeElement(a.created_at)));
  return tr;
}

function emptyRow() {
  const tr = document.createElement('tr');
  const td = cell('', 'No avatars yet. ');
  const link = document.createElement('a');
  link.href = '/studio/avatars/new';
  link.textContent = 'Make your first avatar';
  td.append(link, '.');
  td.colSpan = 3;
  tr.append(td);
  return tr;
}

async function load(token) {
  const res = await api('GET', `/clips/avatars?limit=50${token ? `&token=${encodeURIComponent(token)}` : ''}`);
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return showError(error, res);
  if (!token) rows.replaceChildren();
  for (const a of res.body.avatars) rows.append(avatarRow(a));
  if (!rows.children.length) rows.append(emptyRow());
  nextToken = res.body.token;
  more.hidden = !nextToken;
}

more.addEventListener('click', () => load(nextToken));
load().catch((err) => {
  error.textContent = err.message;
});
