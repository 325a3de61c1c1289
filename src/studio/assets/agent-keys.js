// One agent's client keys: create one for the page origins given (POST
// /agents/{id}/client-keys), shown this once with an embed snippet that has it filled in;
// the agent's active keys (GET); revoke one after a confirmation (DELETE). The snippet is
// text in a read-only field: nothing is parsed as HTML here.
import { api, showError } from './api.js';
import { confirmed } from './confirm.js';
import { cell, emptyRow, fillRows, statusLines, timeElement } from './dom.js';
import { copyText } from './agent-common.js';
import { clearFieldErrors, showFieldErrors } from './form-errors.js';
import { embedSnippet } from './agent-snippet.js';

const $ = (id) => document.getElementById(id);
const page = $('agent-page');
const agentId = page.dataset.agentId;
const publicUrl = page.dataset.publicUrl.replace(/\/+$/, '');
const path = `/agents/${encodeURIComponent(agentId)}/client-keys`;
const form = $('ck-form');
const origins = $('ck-origins');
const name = $('ck-name');
const create = $('ck-create');
const created = $('ck-created');
const createdValue = $('ck-created-value');
const snippet = $('ck-snippet');
const rows = $('ck-rows');
const error = $('ck-error');
const { say } = statusLines($('ck-status'), error);
const dialog = $('ck-revoke-dialog');
const heading = $('keys-heading');

function originList(list) {
  const ul = document.createElement('ul');
  ul.className = 'origins';
  for (const o of list) {
    const li = document.createElement('li');
    li.textContent = o;
    ul.append(li);
  }
  return ul;
}

function keyRow(key) {
  const tr = document.createElement('tr');
  tr.dataset.clientKeyId = key.id;
  const prefix = document.createElement('code');
  prefix.textContent = `${key.prefix}…`;
  const label = key.name ? [`${key.name} `, prefix] : [prefix];
  const revoke = document.createElement('button');
  revoke.type = 'button';
  revoke.className = 'danger';
  revoke.textContent = 'Revoke';
  revoke.setAttribute('aria-label', `Revoke client key ${key.prefix}…`);
  revoke.addEventListener('click', () => confirmRevoke(key, revoke));
  tr.append(cell('Key', ...label), cell('Allowed origins', originList(key.allowed_domains)), cell('Created', timeElement(key.created_at)), cell('', revoke));
  return tr;
}

async function load() {
  const res = await api('GET', path);
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return showError(error, res);
  fillRows(rows, res.body, keyRow, () => emptyRow(4, 'No client keys yet.'));
}

async function submit(e) {
  e.preventDefault();
  clearFieldErrors(form);
  error.textContent = '';
  const list = origins.value.split('\n').map((l) => l.trim()).filter(Boolean);
  if (!list.length) {
    $('ck-origins-error').textContent = 'Give at least one origin: where the page that embeds the agent is served from.';
    origins.setAttribute('aria-invalid', 'true');
    return origins.focus();
  }
  create.disabled = true;
  try {
    const res = await api('POST', path, { allowed_domains: list, ...(name.value.trim() ? { name: name.value.trim() } : {}) });
    if (res.status !== 201) {
      const describe = (field, message) => {
        const line = /^allowed_domains\.(\d+)$/.exec(field);
        return line ? `Line ${Number(line[1]) + 1} (${list[Number(line[1])]}) ${message}.` : message;
      };
      const { first } = showFieldErrors(form, res.body?.details, describe);
      if (first) return first.focus();
      return showError(error, res);
    }
    createdValue.value = res.body.client_key;
    snippet.value = embedSnippet({ agentId, agentName: document.getElementById('agent-name').textContent, clientKey: res.body.client_key, origin: list[0], baseUrl: publicUrl });
    created.hidden = false;
    origins.value = '';
    name.value = '';
    createdValue.focus();
    createdValue.select();
    say(`Client key ${res.body.prefix}… created. Copy it (or the snippet) now: it is not shown again.`);
    await load();
  } finally {
    create.disabled = false;
  }
}

async function confirmRevoke(key, button) {
  $('ck-revoke-prefix').textContent = `${key.prefix}…`;
  if (!(await confirmed(dialog, 'revoke', button))) return;
  const res = await api('DELETE', `${path}/${encodeURIComponent(key.id)}`);
  if (res.status !== 204) return showError(error, res);
  await load();
  say(`Client key ${key.prefix}… revoked: pages using it are refused from their next request.`);
  // The button that had focus is gone with its row: focus goes back to the section.
  heading.focus();
}

form.addEventListener('submit', submit);
$('ck-copy').addEventListener('click', async () => say(await copyText(createdValue.value, createdValue)));
$('ck-snippet-copy').addEventListener('click', async () => say(await copyText(snippet.value, snippet)));
load().catch((err) => {
  error.textContent = err.message;
});
