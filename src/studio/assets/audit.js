// The audit log: GET /audit with the filters in the page's address (the same names the API
// takes; times as ISO 8601 in UTC), newest first, "Show older events" for the next page. The
// tool and secret choices come from GET /tools and GET /secrets, and name each row's subject.
// Text reaches the page through textContent only.
import { api } from './api.js';
import { cell, emptyRow, fillRows, link, statusLines, timeElement } from './dom.js';
import { showMore } from './paging.js';
import { secretLabel } from './tool-view.js';

const $ = (id) => document.getElementById(id);
const form = $('audit-filters');
const rows = $('audit-rows');
const error = $('audit-error');
const { say, fail } = statusLines($('audit-status'), error);
const toolSelect = $('filter-tool');
const secretSelect = $('filter-secret');
const FILTERS = ['action', 'outcome', 'tool_id', 'secret_id', 'since', 'until'];

/** Each action in words: the filter's own option texts. */
const words = new Map([...$('filter-action').options].map((o) => [o.value, o.textContent]));
const tools = new Map();
const secrets = new Map();

/** `2026-11-28T09:30:00.000Z` → `2026-11-28T10:30:00` in the device's time (what datetime-local shows). */
function localInput(iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

/** The filters in the page's address, as GET /audit takes them. */
function currentFilters() {
  const q = new URLSearchParams(location.search);
  return new URLSearchParams(FILTERS.filter((f) => q.get(f)).map((f) => [f, q.get(f)]));
}

function fillForm(filters, names = FILTERS) {
  for (const name of names) {
    const control = form.elements[name];
    const value = filters.get(name) ?? '';
    if (name === 'since' || name === 'until') control.value = value ? localInput(value) : '';
    else {
      if (value && ![...control.options].some((o) => o.value === value)) control.append(new Option(value, value));
      control.value = value;
    }
  }
}

function subject(e) {
  const parts = [];
  if (e.tool_id) {
    parts.push(link(`/studio/tools/${encodeURIComponent(e.tool_id)}`, tools.has(e.tool_id) ? `tool ${tools.get(e.tool_id)}` : `tool ${e.tool_id}`));
  }
  if (e.secret_id) parts.push(parts.length ? ', ' : '', `secret ${secrets.get(e.secret_id) ?? e.secret_id}`);
  if (e.detail?.session_id) parts.push(parts.length ? ', ' : '', `session ${e.detail.session_id}`);
  if (e.external_id) parts.push(parts.length ? ', ' : '', `end user ${e.external_id}`);
  return parts.length ? parts : ['–'];
}

const REASONS = {
  wrong_password: 'wrong password',
  no_password_yet: 'no password set yet (invited)',
  wrong_current_password: 'wrong current password',
};

function details(e) {
  const d = e.detail ?? {};
  const out = [];
  if (d.type && e.action === 'account.invite_accepted') out.push(d.type === 'reset' ? 'reset link' : 'invite link');
  else if (d.type) out.push(d.type);
  if (d.upstream_status !== undefined) out.push(`upstream answered ${d.upstream_status}`);
  if (d.error_kind) out.push(d.error_kind);
  if (d.reason) out.push(REASONS[d.reason] ?? d.reason);
  if (d.duration_ms !== undefined) out.push(`${d.duration_ms} ms`);
  if (d.changed?.length) out.push(`changed ${d.changed.join(', ')}`);
  if (d.address) out.push(`from ${d.address}`);
  if (d.chat_id) out.push(`chat ${d.chat_id}`);
  if (e.call_id) out.push(`call ${e.call_id}`);
  return out.length ? out.join(' · ') : '–';
}

function eventRow(e) {
  const tr = document.createElement('tr');
  tr.dataset.action = e.action;
  const outcome = document.createElement('span');
  outcome.className = `outcome ${e.outcome}`;
  outcome.textContent = e.outcome === 'success' ? 'Succeeded' : 'Failed';
  tr.append(
    cell('When', timeElement(e.at)),
    cell('What', words.get(e.action) ?? e.action),
    cell('Outcome', outcome),
    cell('About', ...subject(e)),
    cell('Details', details(e)),
  );
  return tr;
}

const noEvents = () => emptyRow(5, currentFilters().toString() ? 'No events match these filters.' : 'Nothing has happened yet.');

async function loadChoices() {
  const [toolsRes, secretsRes] = await Promise.all([api('GET', '/tools?limit=100'), api('GET', '/secrets?limit=100')]);
  if (toolsRes.status === 200) for (const t of toolsRes.body.tools) tools.set(t.id, t.name);
  if (secretsRes.status === 200 && Array.isArray(secretsRes.body)) for (const s of secretsRes.body) secrets.set(s.id, secretLabel(s));
  for (const [id, name] of tools) toolSelect.append(new Option(name, id));
  for (const [id, label] of secrets) secretSelect.append(new Option(label, id));
}

async function load(token) {
  const query = currentFilters();
  query.set('limit', '50');
  if (token) query.set('token', token);
  rows.closest('table').setAttribute('aria-busy', 'true');
  const res = await api('GET', `/audit?${query}`);
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) {
    if (!token) rows.replaceChildren();
    return fail(res);
  }
  fillRows(rows, res.body.events, eventRow, noEvents, token);
  paged(res.body.token);
  const shown = rows.querySelectorAll('tr[data-action]').length;
  say(`${shown} event${shown === 1 ? '' : 's'} shown${res.body.token ? ', older ones follow' : ''}.`);
}
const paged = showMore($('audit-more'), load);

/** The form's filters into the address (times as ISO in UTC), then the list again. */
function applyFilters(event) {
  event.preventDefault();
  const query = new URLSearchParams();
  for (const name of FILTERS) {
    const value = form.elements[name].value;
    if (!value) continue;
    query.set(name, name === 'since' || name === 'until' ? new Date(value).toISOString() : value);
  }
  history.pushState(null, '', `/studio/audit${query.toString() ? `?${query}` : ''}`);
  load().catch((err) => (error.textContent = err.message));
}

form.addEventListener('submit', applyFilters);
$('filters-clear').addEventListener('click', (event) => {
  event.preventDefault();
  form.reset();
  history.pushState(null, '', '/studio/audit');
  load().catch((err) => (error.textContent = err.message));
});
addEventListener('popstate', () => {
  fillForm(currentFilters());
  load().catch((err) => (error.textContent = err.message));
});
// The filters that need no list at once; the tool and the secret once their choices are in.
fillForm(currentFilters(), ['action', 'outcome', 'since', 'until']);
loadChoices()
  .then(() => {
    fillForm(currentFilters(), ['tool_id', 'secret_id']);
    return load();
  })
  .catch(fail);
