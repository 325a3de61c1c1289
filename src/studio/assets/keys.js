// The API keys page: lists the person's keys (GET /keys), creates one and shows it this
// once with a copy button (POST /keys), revokes one after a confirmation (DELETE /keys/{id}).
// Every text reaches the page through textContent: nothing is parsed as HTML.
import { api } from './api.js';
import { confirmed } from './confirm.js';
import { cell, emptyRow, fillRows, statusLines, timeElement } from './dom.js';
import { pagePath, showMore } from './paging.js';

const $ = (id) => document.getElementById(id);
const rows = $('keys-rows');
const { say, fail } = statusLines($('keys-status'), $('keys-error'));
const createButton = $('key-create');
const created = $('key-created');
const createdValue = $('key-created-value');
const copyButton = $('key-copy');
const dialog = $('key-revoke-dialog');
const dialogPrefix = $('key-revoke-prefix');
const listHeading = $('keys-heading');

function keyRow(key) {
  const tr = document.createElement('tr');
  tr.dataset.keyId = key.id;
  const prefix = document.createElement('code');
  prefix.textContent = `${key.prefix}…`;
  const state = key.revoked_at === null ? document.createTextNode('Active') : document.createDocumentFragment();
  if (key.revoked_at !== null) state.append('Revoked ', timeElement(key.revoked_at));
  tr.append(cell('Key', prefix), cell('Created', timeElement(key.created_at)), cell('Status', state));
  const action = cell('');
  if (key.revoked_at === null) {
    const revoke = document.createElement('button');
    revoke.type = 'button';
    revoke.className = 'danger';
    revoke.textContent = 'Revoke';
    revoke.setAttribute('aria-label', `Revoke key ${key.prefix}…`);
    revoke.addEventListener('click', () => confirmRevoke(key, revoke));
    action.append(revoke);
  }
  tr.append(action);
  return tr;
}

async function load(token) {
  const res = await api('GET', pagePath('/keys?limit=50', token));
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return fail(res);
  fillRows(rows, res.body.keys, keyRow, () => emptyRow(4, 'No API keys yet.'), token);
  paged(res.body.token);
}
const paged = showMore($('keys-more'), load);

async function create() {
  createButton.disabled = true;
  try {
    const res = await api('POST', '/keys');
    if (res.status !== 201) return fail(res);
    createdValue.value = res.body.api_key;
    created.hidden = false;
    createdValue.focus();
    createdValue.select();
    say(`Key ${res.body.prefix}… created. Copy it now: it is not shown again.`);
    await load();
  } finally {
    createButton.disabled = false;
  }
}

async function copy() {
  try {
    await navigator.clipboard.writeText(createdValue.value);
    return say('Copied to the clipboard.');
  } catch {
    // No clipboard API (a page not served over https or loopback): copy the selection.
    createdValue.select();
    say(document.execCommand('copy') ? 'Copied to the clipboard.' : 'The key is selected: copy it with Ctrl+C (⌘C on a Mac).');
  }
}

async function confirmRevoke(key, button) {
  dialogPrefix.textContent = `${key.prefix}…`;
  if (!(await confirmed(dialog, 'revoke', button))) return;
  const res = await api('DELETE', `/keys/${encodeURIComponent(key.id)}`);
  if (res.status !== 200) return fail(res);
  const row = rows.querySelector(`tr[data-key-id="${CSS.escape(key.id)}"]`);
  row?.replaceWith(keyRow(res.body));
  say(`Key ${key.prefix}… revoked: programs using it are refused from their next request.`);
  // The button that had focus is gone with its row: focus goes back to the list.
  listHeading.focus();
}

createButton.addEventListener('click', create);
copyButton.addEventListener('click', copy);
load().catch(fail);
