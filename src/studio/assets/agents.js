// The agents page: the person's agents (GET /agents/me), each with its presenter's name (GET
// /clips/presenters), its model and when it was made, linking to the agent's own page.
// Every text reaches the page through textContent: nothing is parsed as HTML.
import { api, showError } from './api.js';
import { cell, timeElement } from './dom.js';
import { modelSummary, presenterNames, thumbnail } from './agent-common.js';

const $ = (id) => document.getElementById(id);
const rows = $('agents-rows');
const error = $('agents-error');
const more = $('agents-more');

let nextToken;
let names = new Map();

function agentRow(agent) {
  const tr = document.createElement('tr');
  tr.dataset.agentId = agent.id;
  const link = document.createElement('a');
  link.href = `/studio/agents/${encodeURIComponent(agent.id)}`;
  link.className = 'agent-name';
  link.textContent = agent.preview_name || 'Untitled agent';
  const presenter = agent.presenter.type === 'clip' ? names.get(agent.presenter.presenter_id) ?? agent.presenter.presenter_id : 'A photo';
  const name = document.createElement('span');
  name.className = 'agent-cell';
  name.append(thumbnail(agent.preview_thumbnail), link);
  tr.append(
    cell('Name', name),
    cell('Presenter', presenter),
    cell('Model', modelSummary(agent.llm)),
    cell('Created', timeElement(agent.created_at)),
  );
  return tr;
}

function emptyRow() {
  const tr = document.createElement('tr');
  const link = document.createElement('a');
  link.href = '/studio/agents/new';
  link.textContent = 'Make your first agent';
  const td = cell('', 'No agents yet. ', link, '.');
  td.colSpan = 4;
  tr.append(td);
  return tr;
}

async function load(token) {
  const res = await api('GET', `/agents/me?limit=50${token ? `&token=${encodeURIComponent(token)}` : ''}`);
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return showError(error, res);
  if (!token) rows.replaceChildren();
  for (const agent of res.body.agents) rows.append(agentRow(agent));
  if (!rows.children.length) rows.append(emptyRow());
  nextToken = res.body.token;
  more.hidden = !nextToken;
}

more.addEventListener('click', () => load(nextToken));
// The presenters' names first (one call), so that a row names its presenter as it appears.
presenterNames()
  .then((n) => {
    names = n;
  })
  .finally(() => load())
  .catch((err) => {
    error.textContent = err.message;
  });
