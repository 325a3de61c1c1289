// The consents page: the person's consents, newest first (GET /consents, `?status=` when a
// filter is chosen), each with its status in words and a link to its page. Text only
// through textContent.
import { api, showError } from './api.js';
import { cell, timeElement } from './dom.js';
import { statusWords } from './consent-checks.js';

const $ = (id) => document.getElementById(id);
const rows = $('consents-rows');
const error = $('consents-error');
const more = $('consents-more');
const filter = $('consents-status');

let nextToken;

const title = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function consentRow(c) {
  const tr = document.createElement('tr');
  tr.dataset.consentId = c.id;
  const link = document.createElement('a');
  link.href = `/studio/consents/${encodeURIComponent(c.id)}`;
  link.textContent = c.name ?? 'No name yet';
  const status = document.createElement('span');
  status.className = 'consent-status';
  status.dataset.status = c.status;
  status.textContent = statusWords(c);
  tr.append(cell('Name', link), cell('Language', title(c.language)), cell('Status', status), cell('Created', timeElement(c.created_at)));
  return tr;
}

function emptyRow() {
  const tr = document.createElement('tr');
  const td = cell('', filter.value ? 'No consents with this status.' : 'No consents yet: record one to make an avatar of yourself.');
  td.colSpan = 4;
  tr.append(td);
  return tr;
}

async function load(token) {
  const query = new URLSearchParams({ limit: '50' });
  if (token) query.set('token', token);
  if (filter.value) query.set('status', filter.value);
  const res = await api('GET', `/consents?${query}`);
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return showError(error, res);
  error.textContent = '';
  if (!token) rows.replaceChildren();
  for (const c of res.body.consents) rows.append(consentRow(c));
  if (!rows.children.length) rows.append(emptyRow());
  nextToken = res.body.token;
  more.hidden = !nextToken;
}

const fail = (err) => void (error.textContent = err.message);
filter.addEventListener('change', () => load().catch(fail));
more.addEventListener('click', () => load(nextToken).catch(fail));
load().catch(fail);
