// The consents page: the person's consents, newest first (GET /consents, `?status=` when a
// filter is chosen), each with its status in words and a link to its page. Text only
// through textContent.
import { api } from './api.js';
import { cell, emptyRow, fillRows, link, statusLines, timeElement } from './dom.js';
import { showMore } from './paging.js';
import { statusWords } from './consent-checks.js';

const $ = (id) => document.getElementById(id);
const rows = $('consents-rows');
const error = $('consents-error');
const { fail } = statusLines(null, error);
const filter = $('consents-status');

const title = (s) => s.charAt(0).toUpperCase() + s.slice(1);

function consentRow(c) {
  const tr = document.createElement('tr');
  tr.dataset.consentId = c.id;
  const status = document.createElement('span');
  status.className = 'consent-status';
  status.dataset.status = c.status;
  status.textContent = statusWords(c);
  tr.append(cell('Name', link(`/studio/consents/${encodeURIComponent(c.id)}`, c.name ?? 'No name yet')), cell('Language', title(c.language)), cell('Status', status), cell('Created', timeElement(c.created_at)));
  return tr;
}

const noConsents = () => emptyRow(4, filter.value ? 'No consents with this status.' : 'No consents yet: record one to make an avatar of yourself.');

async function load(token) {
  const query = new URLSearchParams({ limit: '50' });
  if (token) query.set('token', token);
  if (filter.value) query.set('status', filter.value);
  const res = await api('GET', `/consents?${query}`);
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return fail(res);
  error.textContent = '';
  fillRows(rows, res.body.consents, consentRow, noConsents, token);
  paged(res.body.token);
}
const paged = showMore($('consents-more'), (token) => load(token).catch(fail));

filter.addEventListener('change', () => load().catch(fail));
load().catch(fail);
