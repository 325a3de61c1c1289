// The secrets page: lists the person's secrets with what uses each (GET /secrets, whose
// records carry used_by), stores a new bearer, api_key or basic secret (POST /secrets),
// rotates one (PUT /secrets/{id}), deletes one (DELETE /secrets/{id}; its 409 said in words),
// and sends an oauth2 secret that needs reauthorization to Reconnect. A value typed here goes
// to the API once and is emptied from the page; no answer holds one. Text through textContent only.
import { api, showError } from './api.js';
import { confirmed } from './confirm.js';
import { cell, emptyRow, fillRows, statusLines } from './dom.js';
import { showMore } from './paging.js';
import { clearFieldErrors, showFieldErrors } from './secret-form.js';

const $ = (id) => document.getElementById(id);
const rows = $('secrets-rows');
const status = $('secrets-status');
const error = $('secrets-error');
const heading = $('secrets-heading');
const formError = $('secret-form-error');
const rotateDialog = $('secret-rotate-dialog');
const rotateForm = $('secret-rotate-form');
const rotateFields = $('secret-rotate-fields');
const rotateTitle = $('secret-rotate-title');
const rotateError = $('secret-rotate-error');
const deleteDialog = $('secret-delete-dialog');
const deleteName = $('secret-delete-name');

const KINDS = { bearer: 'Bearer token', api_key: 'API key', basic: 'Username and password', oauth2: 'OAuth account' };
/** The credential fields PUT takes per kind (oauth2 is reconnected instead). */
const VALUES = {
  bearer: [{ name: 'token', label: 'New token', type: 'password' }],
  api_key: [{ name: 'api_key', label: 'New API key', type: 'password' }],
  basic: [
    { name: 'username', label: 'Username (empty: keep it)', type: 'text', optional: true },
    { name: 'password', label: 'New password', type: 'password' },
  ],
};

/** A date as the reader's locale writes it, the full time in its title (the table stays narrow). */
function dateElement(iso) {
  const t = document.createElement('time');
  t.dateTime = iso;
  t.textContent = new Date(iso).toLocaleDateString();
  t.title = new Date(iso).toLocaleString();
  return t;
}

/** The secrets on the page by id, as the API last answered them. */
const shown = new Map();
const { say, fail } = statusLines(status, error, { focus: true });

/** "get_weather, get_forecast and 3 more" */
function names(list, total, nameOf) {
  const parts = list.map(nameOf);
  if (total > list.length) parts.push(`${total - list.length} more`);
  return parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
}

const toolName = (t) => t.name;
const agentName = (a) => a.name || a.id;

/** The tools and agents that use a secret, one line each. */
function usage(used) {
  const list = document.createElement('ul');
  list.className = 'used-by';
  if (!used || (!used.tools_total && !used.agents_total)) {
    const li = document.createElement('li');
    li.className = 'unused';
    li.textContent = 'Nothing uses it yet';
    list.append(li);
    return list;
  }
  const toolsById = new Map(used.tools.map((t) => [t.id, t.name]));
  for (const t of used.tools) {
    const li = document.createElement('li');
    li.textContent = `Tool ${t.name}`;
    list.append(li);
  }
  if (used.tools_total > used.tools.length) {
    const li = document.createElement('li');
    li.textContent = `and ${used.tools_total - used.tools.length} more tools`;
    list.append(li);
  }
  for (const a of used.agents) {
    const li = document.createElement('li');
    const how = [];
    if (a.model) how.push('model key');
    if (a.tool_ids.length) how.push(`through ${a.tool_ids.map((id) => toolsById.get(id) ?? id).join(', ')}`);
    li.textContent = `Agent ${agentName(a)} (${how.join('; ')})`;
    list.append(li);
  }
  if (used.agents_total > used.agents.length) {
    const li = document.createElement('li');
    li.textContent = `and ${used.agents_total - used.agents.length} more agents`;
    list.append(li);
  }
  return list;
}

function statusCell(secret) {
  const badge = document.createElement('span');
  if (secret.status === 'needs_reauthorization') {
    badge.className = 'badge warn';
    badge.textContent = 'Needs reauthorization';
    const why = document.createElement('span');
    why.className = 'hint block';
    why.textContent = 'The provider withdrew access: calls that use it fail until you reconnect.';
    return cell('Status', badge, why);
  }
  badge.className = 'badge ok';
  badge.textContent = 'Active';
  return cell('Status', badge);
}

function button(text, className, label, onClick) {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = text;
  b.setAttribute('aria-label', label);
  b.addEventListener('click', () => onClick(b));
  return b;
}

function secretRow(secret) {
  const tr = document.createElement('tr');
  tr.dataset.secretId = secret.id;
  const name = document.createElement('strong');
  name.textContent = secret.provider;
  const id = document.createElement('code');
  id.className = 'secret-id';
  id.textContent = secret.id;
  const kind = document.createElement('span');
  kind.textContent = KINDS[secret.type] ?? secret.type;
  if (secret.type === 'api_key' && secret.header_name) {
    const header = document.createElement('span');
    header.className = 'hint block';
    header.textContent = `in ${secret.header_name}`;
    kind.append(header);
  }
  const changed = secret.updated_at === secret.created_at ? document.createTextNode('never') : dateElement(secret.updated_at);
  const actions = cell('');
  actions.className = 'actions';
  if (secret.type === 'oauth2') {
    const reconnect = document.createElement('a');
    reconnect.href = `/studio/secrets/connect?secret=${encodeURIComponent(secret.id)}`;
    reconnect.className = secret.status === 'needs_reauthorization' ? 'button' : 'button secondary';
    reconnect.textContent = 'Reconnect';
    reconnect.setAttribute('aria-label', `Reconnect ${secret.provider}`);
    actions.append(reconnect);
  } else {
    actions.append(button('Rotate', 'secondary', `Rotate ${secret.provider}`, (b) => rotate(secret, b)));
  }
  actions.append(button('Delete', 'danger', `Delete ${secret.provider}`, (b) => confirmDelete(secret, b)));
  tr.append(
    cell('Name', name, document.createElement('br'), id),
    cell('Kind', kind),
    statusCell(secret),
    cell('Created', dateElement(secret.created_at)),
    cell('Last changed', changed),
    cell('Used by', usage(secret.used_by)),
    actions,
  );
  return tr;
}

const noSecrets = () => emptyRow(7, 'No secrets yet. Store one above, or connect an account.');

async function load(token) {
  const res = await api('GET', `/secrets?limit=50${token ? `&token=${encodeURIComponent(token)}` : ''}`);
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return fail(res);
  if (!token) shown.clear();
  for (const secret of res.body) shown.set(secret.id, secret);
  fillRows(rows, res.body, secretRow, noSecrets, token);
  // The list is a bare array (as the hosted service answers); the next page's token comes in X-Next-Token.
  paged(res.headers.get('x-next-token') ?? undefined);
}
const paged = showMore($('secrets-more'), load);

/** Reloads one secret (its used_by too) in place. */
async function refresh(id) {
  const res = await api('GET', `/secrets/${encodeURIComponent(id)}`);
  const row = rows.querySelector(`tr[data-secret-id="${CSS.escape(id)}"]`);
  if (res.status === 404) return row?.remove();
  if (res.status !== 200) return fail(res);
  shown.set(id, res.body);
  if (row) row.replaceWith(secretRow(res.body));
  else load();
}

// New secret: the radio buttons show one form per kind.
const forms = [...document.querySelectorAll('form.secret-form')];
for (const radio of document.querySelectorAll('input[name="secret-type"]')) {
  radio.addEventListener('change', () => {
    for (const f of forms) f.hidden = f.dataset.type !== radio.value;
    formError.textContent = '';
  });
}

function bodyOf(form) {
  const body = { type: form.dataset.type };
  for (const input of form.querySelectorAll('input[name]')) {
    if (input.value !== '') body[input.name] = input.type === 'password' ? input.value : input.value.trim();
  }
  return body;
}

function emptyValues(form) {
  for (const input of form.querySelectorAll('input[type="password"]')) input.value = '';
}

for (const form of forms) {
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const submit = form.querySelector('button[type="submit"]');
    clearFieldErrors(form);
    formError.textContent = '';
    const body = bodyOf(form);
    // The value leaves the page with this request, and the page keeps no copy.
    emptyValues(form);
    submit.disabled = true;
    try {
      const res = await api('POST', '/secrets', body);
      if (res.status !== 201) {
        if (!showFieldErrors(form, res)) showError(formError, res);
        return;
      }
      form.reset();
      say(`Secret ${res.body.provider} stored (${res.body.id}). Tools can use it now; its value is not shown again.`);
      await load();
    } finally {
      submit.disabled = false;
    }
  });
}

function rotate(secret, opener) {
  rotateTitle.textContent = `Rotate ${secret.provider}`;
  rotateError.textContent = '';
  rotateFields.replaceChildren();
  for (const field of VALUES[secret.type]) {
    const id = `rotate-${field.name}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = field.label;
    const input = document.createElement('input');
    input.id = id;
    input.name = field.name;
    input.type = field.type;
    input.autocomplete = 'off';
    input.spellcheck = false;
    input.required = !field.optional;
    const err = document.createElement('p');
    err.id = `${id}-error`;
    err.className = 'error field-error';
    err.dataset.field = field.name;
    input.setAttribute('aria-describedby', err.id);
    rotateFields.append(label, input, err);
  }
  rotateDialog.returnValue = '';
  const save = async (event) => {
    if (event.submitter?.value !== 'save') return;
    event.preventDefault();
    clearFieldErrors(rotateForm);
    rotateError.textContent = '';
    const body = {};
    for (const input of rotateFields.querySelectorAll('input')) if (input.value !== '') body[input.name] = input.value;
    emptyValues(rotateForm);
    const res = await api('PUT', `/secrets/${encodeURIComponent(secret.id)}`, body);
    if (res.status !== 200) {
      if (!showFieldErrors(rotateForm, res)) showError(rotateError, res);
      return;
    }
    rotateDialog.close('saved');
    say(`Secret ${secret.provider} rotated: the next call that uses it sends the new value.`);
    await refresh(secret.id);
    heading.focus();
  };
  rotateForm.addEventListener('submit', save);
  // Enter in a field saves (the form's first button, which a browser would press, is Cancel).
  const enter = (event) => {
    if (event.key !== 'Enter' || event.target.tagName !== 'INPUT') return;
    event.preventDefault();
    rotateForm.requestSubmit($('secret-rotate-save'));
  };
  rotateFields.addEventListener('keydown', enter);
  rotateDialog.addEventListener('close', function onClose() {
    rotateDialog.removeEventListener('close', onClose);
    rotateForm.removeEventListener('submit', save);
    rotateFields.removeEventListener('keydown', enter);
    rotateFields.replaceChildren();
    if (rotateDialog.returnValue !== 'saved' && opener.isConnected) opener.focus();
  });
  rotateDialog.showModal();
  rotateFields.querySelector('input:not([type="text"])')?.focus();
}

/** The 409 of a secret still in use, in words, with the names the page knows. */
function inUse(secret, res) {
  const used = shown.get(secret.id)?.used_by;
  const tools = res.body?.details?.tool_ids ?? [];
  const agents = res.body?.details?.agent_ids ?? [];
  const toolNames = new Map((used?.tools ?? []).map((t) => [t.id, t.name]));
  const agentNames = new Map((used?.agents ?? []).map((a) => [a.id, agentName(a)]));
  const parts = [];
  if (tools.length) parts.push(`${tools.length === 1 ? 'the tool' : 'the tools'} ${names(tools, tools.length, (id) => toolNames.get(id) ?? id)}`);
  if (agents.length) parts.push(`${agents.length === 1 ? 'the agent' : 'the agents'} ${names(agents, agents.length, (id) => agentNames.get(id) ?? id)}`);
  return `${secret.provider} was not deleted: ${parts.join(' and ')} still ${tools.length + agents.length === 1 ? 'uses' : 'use'} it. Give them another secret or delete them first.`;
}

async function confirmDelete(secret, opener) {
  deleteName.textContent = secret.provider;
  if (!(await confirmed(deleteDialog, 'delete', opener))) return;
  const res = await api('DELETE', `/secrets/${encodeURIComponent(secret.id)}`);
  if (res.status === 409) {
    status.textContent = '';
    error.textContent = inUse(secret, res);
    error.focus();
    await refresh(secret.id);
    return;
  }
  if (res.status !== 200) return fail(res);
  rows.querySelector(`tr[data-secret-id="${CSS.escape(secret.id)}"]`)?.remove();
  shown.delete(secret.id);
  if (!rows.children.length) rows.append(noSecrets());
  say(`Secret ${secret.provider} deleted.`);
  heading.focus();
}

load().catch((err) => {
  status.textContent = '';
  error.textContent = err.message;
});
