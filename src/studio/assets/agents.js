// The agents page: the person's agents (GET /agents/me), each with its presenter's name (GET
// /clips/presenters), its model and when it was made, linking to the agent's own page.
// Every text reaches the page through textContent: nothing is parsed as HTML.
import { api } from './api.js';
import { cell, emptyRow, fillRows, link, statusLines, timeElement } from './dom.js';
import { pagePath, showMore } from './paging.js';
import { modelSummary, presenterNames, thumbnail } from './agent-common.js';

const $ = (id) => document.getElementById(id);
const rows = $('agents-rows');
const { fail } = statusLines(null, $('agents-error'));

let names = new Map();

function agentRow(agent) {
  const tr = document.createElement('tr');
  tr.dataset.agentId = agent.id;
  const presenter = agent.presenter.type === 'clip' ? names.get(agent.presenter.presenter_id) ?? agent.presenter.presenter_id : 'A photo';
  const name = document.createElement('span');
  name.className = 'agent-cell';
  name.append(thumbnail(agent.preview_thumbnail), link(`/studio/agents/${encodeURIComponent(agent.id)}`, agent.preview_name || 'Untitled agent', 'agent-name'));
  tr.append(
    cell('Name', name),
    cell('Presenter', presenter),
    cell('Model', modelSummary(agent.llm)),
    cell('Created', timeElement(agent.created_at)),
  );
  return tr;
}

function noAgents() {
  return emptyRow(4, 'No agents yet. ', link('/studio/agents/new', 'Make your first agent'), '.');
}

async function load(token) {
  const res = await api('GET', pagePath('/agents/me?limit=50', token));
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return fail(res);
  fillRows(rows, res.body.agents, agentRow, noAgents, token);
  paged(res.body.token);
}
const paged = showMore($('agents-more'), load);

// The presenters' names first (one call), so that a row names its presenter as it appears.
presenterNames()
  .then((n) => {
    names = n;
  })
  .finally(() => load())
  .catch(fail);
