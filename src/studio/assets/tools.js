// The tools page: the person's tools (GET /tools) with the secret each sends (GET /secrets,
// by provider and type, never a value), a link to each one's editor, and deleting one after a
// confirmation (DELETE /tools/{id}). Text reaches the page through textContent only.
import { api } from './api.js';
import { confirmed } from './confirm.js';
import { cell, emptyRow, fillRows, link, statusLines } from './dom.js';
import { pagePath, showMore } from './paging.js';
import { hostOf, secretLabel } from './tool-view.js';

const $ = (id) => document.getElementById(id);
const rows = $('tools-rows');
const { say, fail } = statusLines($('tools-status'), $('tools-error'));
const dialog = $('tool-delete-dialog');
const dialogName = $('tool-delete-name');
const heading = $('tools-heading');

/** Secret id → its label; filled once, before the first rows. */
const secrets = new Map();

function toolRow(tool) {
  const tr = document.createElement('tr');
  tr.dataset.toolId = tool.id;
  const name = link(`/studio/tools/${encodeURIComponent(tool.id)}`, tool.name);
  const server = tool.config.type === 'server';
  const secret = tool.auth ? (secrets.get(tool.auth.secret_id) ?? tool.auth.secret_id) : server ? 'none' : '–';
  const remove = document.createElement('button');
  remove.type = 'button';
  remove.className = 'danger';
  remove.textContent = 'Delete';
  remove.setAttribute('aria-label', `Delete tool ${tool.name}`);
  remove.addEventListener('click', () => confirmDelete(tool, remove));
  tr.append(
    cell('Name', name),
    cell('Kind', server ? 'Server' : 'Client'),
    cell('Method', server ? tool.config.method : '–'),
    cell('Host', server ? hostOf(tool.config.url) : 'the browser'),
    cell('Secret', secret),
    cell('', remove),
  );
  return tr;
}

function noTools() {
  return emptyRow(6, 'No tools yet: ', link('/studio/tools/new', 'make your first one'), '.');
}

async function loadSecrets() {
  const res = await api('GET', '/secrets?limit=100');
  if (res.status === 200 && Array.isArray(res.body)) for (const s of res.body) secrets.set(s.id, secretLabel(s));
}

async function load(token) {
  const res = await api('GET', pagePath('/tools?limit=50', token));
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return fail(res);
  fillRows(rows, res.body.tools, toolRow, noTools, token);
  paged(res.body.token);
}
const paged = showMore($('tools-more'), load);

async function confirmDelete(tool, button) {
  dialogName.textContent = tool.name;
  if (!(await confirmed(dialog, 'delete', button))) return;
  const res = await api('DELETE', `/tools/${encodeURIComponent(tool.id)}`);
  if (res.status !== 200) return fail(res);
  rows.querySelector(`tr[data-tool-id="${CSS.escape(tool.id)}"]`)?.remove();
  if (!rows.children.length) rows.append(noTools());
  say(`Tool ${tool.name} deleted.`);
  heading.focus();
}

loadSecrets()
  .then(() => load())
  .catch(fail);
