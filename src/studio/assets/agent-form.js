// A new agent, or changes to one: the pickers filled from the API (presenters, voices, the
// person's secrets and tools), then POST /agents or PATCH /agents/{id} (a JSON merge patch:
// a field emptied is sent as null, which removes it). The API's validation errors show beside
// the field they name. Text only: nothing is parsed as HTML.
import { api, showError } from './api.js';
import { confirmed } from './confirm.js';
import { allPages, pagePath, showMore } from './paging.js';
import { thumbnail } from './agent-common.js';
import { clearFieldErrors, showFieldErrors } from './form-errors.js';

const $ = (id) => document.getElementById(id);
const form = $('agent-form');
const agentId = form.dataset.agentId;
const formError = $('agent-form-error');
const status = $('agent-form-status');
const save = $('agent-save');
const presenterOptions = $('presenter-options');
const voice = $('agent-voice');
const provider = $('llm-provider');
const secret = $('llm-secret');
const toolOptions = $('tool-options');
const f = {
  name: $('agent-name'),
  description: $('agent-description'),
  model: $('llm-model'),
  baseUrl: $('llm-base-url'),
  customUrl: $('llm-custom-url'),
  temperature: $('llm-temperature'),
  instructions: $('llm-instructions'),
  greetings: $('agent-greetings'),
  starters: $('agent-starters'),
};

/** The agent being changed, as GET /agents/{id} answered it. */
let original;

const lines = (text) => text.split('\n').map((l) => l.trim()).filter(Boolean);
const voiceValue = (v) => `${v.type}\u0000${v.voice_id}`;

function option(value, text) {
  const o = document.createElement('option');
  o.value = value;
  o.textContent = text;
  return o;
}

function presenterOption(p) {
  const label = document.createElement('label');
  label.className = 'presenter-option';
  const input = document.createElement('input');
  input.type = 'radio';
  input.name = 'presenter';
  input.value = p.presenter_id;
  const img = thumbnail(p.thumbnail_url);
  const name = document.createElement('span');
  name.textContent = p.name;
  label.append(input, img, name);
  if (p.owner_id !== 'mimic') label.title = 'Your own presenter';
  return label;
}

async function loadPresenters(token) {
  const res = await api('GET', pagePath('/clips/presenters?limit=24', token));
  if (res.status !== 200) return showError(formError, res);
  if (!token) presenterOptions.replaceChildren();
  for (const p of res.body.presenters) if (p.is_streamable !== false) presenterOptions.append(presenterOption(p));
  morePresenters(res.body.token);
}
const morePresenters = showMore($('presenters-more'), loadPresenters);

async function loadVoices() {
  const res = await api('GET', '/tts/voices');
  if (res.status !== 200) return;
  const groups = new Map();
  for (const v of res.body) {
    if (!groups.has(v.provider)) groups.set(v.provider, Object.assign(document.createElement('optgroup'), { label: v.provider }));
    const locales = v.languages.map((l) => l.locale).join(', ');
    groups.get(v.provider).append(option(voiceValue({ type: v.provider, voice_id: v.id }), `${v.name}${locales ? ` (${locales})` : ''}`));
  }
  voice.append(...groups.values());
}

async function loadSecrets() {
  const res = await api('GET', '/secrets');
  if (res.status !== 200) return;
  for (const s of res.body) {
    const o = option(s.id, `${s.provider} · ${s.type} · ${s.id}${s.status === 'needs_reauthorization' ? ' (needs reconnecting)' : ''}`);
    secret.append(o);
  }
}

async function loadTools() {
  const { items: tools } = await allPages('/tools?limit=100', 'tools');
  toolOptions.replaceChildren();
  if (!tools.length) {
    const p = document.createElement('p');
    p.className = 'hint';
    p.textContent = 'You have no tools yet: define one with POST /tools, then come back.';
    toolOptions.append(p);
  }
  for (const t of tools) {
    const label = document.createElement('label');
    label.className = 'tool-option';
    const input = document.createElement('input');
    input.type = 'checkbox';
    input.name = 'tool';
    input.value = t.id;
    const text = document.createElement('div');
    const name = document.createElement('strong');
    name.textContent = t.name;
    const about = document.createElement('span');
    about.textContent = `${t.config.type === 'client' ? 'Client tool' : 'Server tool'}${t.description ? `: ${t.description}` : ''}`;
    text.append(name, about);
    label.append(input, text);
    toolOptions.append(label);
  }
}

function showProvider() {
  const custom = provider.value === 'custom';
  $('openai-fields').hidden = custom;
  $('custom-fields').hidden = !custom;
}

/** Puts the agent's values into the form (a choice that is not listed, such as another user's voice, is added so it is kept). */
function fill(agent) {
  f.name.value = agent.preview_name ?? '';
  f.description.value = agent.preview_description ?? '';
  if (agent.presenter.type === 'clip') {
    const radio = form.querySelector(`input[name="presenter"][value="${CSS.escape(agent.presenter.presenter_id)}"]`);
    if (radio) radio.checked = true;
    else presenterOptions.prepend(presenterOption({ presenter_id: agent.presenter.presenter_id, name: agent.presenter.presenter_id, thumbnail_url: agent.preview_thumbnail, owner_id: '' }));
    form.querySelector(`input[name="presenter"][value="${CSS.escape(agent.presenter.presenter_id)}"]`).checked = true;
  } else {
    // A photo (talk) agent: kept as it is unless a presenter is picked.
    presenterOptions.prepend(presenterOption({ presenter_id: '', name: 'Its photo (as it is)', thumbnail_url: agent.preview_thumbnail, owner_id: '' }));
    form.querySelector('input[name="presenter"][value=""]').checked = true;
  }
  const v = agent.presenter.voice;
  if (v) {
    const value = voiceValue(v);
    if (![...voice.options].some((o) => o.value === value)) voice.append(option(value, `${v.type}: ${v.voice_id}`));
    voice.value = value;
  }
  const llm = agent.llm;
  provider.value = llm.provider;
  showProvider();
  f.model.value = llm.model ?? '';
  f.baseUrl.value = llm.base_url ?? '';
  f.customUrl.value = llm.custom?.url ?? '';
  if (llm.secret_id && ![...secret.options].some((o) => o.value === llm.secret_id)) secret.append(option(llm.secret_id, llm.secret_id));
  secret.value = llm.secret_id ?? '';
  f.temperature.value = llm.temperature ?? '';
  f.instructions.value = llm.instructions ?? '';
  for (const box of form.querySelectorAll('input[name="tool"]')) box.checked = llm.tools.includes(box.value);
  f.greetings.value = agent.greetings.join('\n');
  f.starters.value = agent.starter_message.join('\n');
}

/** What the form says, as a CreateAgent body; `empty` is what an emptied optional field becomes (undefined to leave it out, null to remove it). */
function body(empty) {
  const text = (el) => (el.value.trim() === '' ? empty : el.value.trim());
  const picked = form.querySelector('input[name="presenter"]:checked')?.value;
  const [vType, vId] = voice.value ? voice.value.split('\u0000') : [];
  const voiceChoice = vType ? { type: vType, voice_id: vId } : empty;
  let presenter;
  if (picked) presenter = { type: 'clip', presenter_id: picked, voice: voiceChoice };
  else if (picked === '' && original?.presenter.type === 'talk') presenter = { ...original.presenter, voice: voiceChoice };
  else presenter = undefined; // none picked: the API says so beside the picker
  const temperature = f.temperature.value.trim() === '' ? empty : Number(f.temperature.value);
  const llm =
    provider.value === 'custom'
      ? { provider: 'custom', custom: { url: f.customUrl.value.trim() } }
      : { provider: 'openai', model: text(f.model), base_url: text(f.baseUrl) };
  Object.assign(llm, {
    secret_id: secret.value || empty,
    temperature,
    instructions: text(f.instructions),
    tools: [...form.querySelectorAll('input[name="tool"]:checked')].map((b) => b.value),
  });
  return { preview_name: text(f.name), preview_description: text(f.description), presenter, llm, greetings: lines(f.greetings.value), starter_message: lines(f.starters.value) };
}

/** null → absent, for a part that replaces the old one (another presenter type or provider): nothing to remove there. */
function withoutNulls(value) {
  if (Array.isArray(value) || value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => [k, withoutNulls(v)]));
}

function patchBody() {
  const b = body(null);
  if (b.presenter && b.presenter.type !== original.presenter.type) b.presenter = withoutNulls(b.presenter);
  if (b.llm.provider !== original.llm.provider) b.llm = withoutNulls(b.llm);
  if (b.presenter === undefined) delete b.presenter;
  return b;
}

/** The API's words for a field, said in the form's terms where they name a field the form shows differently. */
function describe(path, message) {
  if (path === 'presenter' && /required/.test(message)) return 'Pick a presenter.';
  if (/^llm\.tools\.\d+$/.test(path)) return `A tool ${message}`;
  return message;
}

async function submit(e) {
  e.preventDefault();
  formError.textContent = '';
  status.textContent = '';
  clearFieldErrors(form);
  save.disabled = true;
  try {
    const res = agentId ? await api('PATCH', `/agents/${encodeURIComponent(agentId)}`, patchBody()) : await api('POST', '/agents', withoutNulls(body(undefined)));
    if (res.status === 200 || res.status === 201) {
      status.textContent = agentId ? 'Saved.' : 'Agent created.';
      location.assign(`/studio/agents/${encodeURIComponent(res.body.id)}`);
      return;
    }
    const { unplaced, first } = showFieldErrors(form, res.body?.details, describe);
    if (first) {
      formError.textContent = unplaced.length ? `Please correct the fields marked below. ${unplaced.join(' ')}` : 'Please correct the fields marked below.';
      first.focus();
    } else {
      showError(formError, res);
      formError.focus();
    }
  } catch (err) {
    formError.textContent = err.message;
  } finally {
    save.disabled = false;
  }
}

async function start() {
  await Promise.all([loadPresenters(), loadVoices(), loadSecrets(), loadTools()]);
  if (agentId) {
    const res = await api('GET', `/agents/${encodeURIComponent(agentId)}`);
    if (res.status !== 200) {
      showError(formError, res);
      save.disabled = true;
      return;
    }
    original = res.body;
    fill(original);
    document.title = `Edit ${original.preview_name || 'agent'} · mimic studio`;
    $('agent-form-title').textContent = `Edit ${original.preview_name || 'agent'}`;
  } else {
    form.querySelector('input[name="presenter"]')?.click();
  }
  form.setAttribute('aria-busy', 'false');
}

/** Deleting the agent (the edit page only), after a confirmation: then back to the list. */
async function confirmDelete() {
  if (!(await confirmed($('agent-delete-dialog'), 'delete', $('agent-delete')))) return;
  const res = await api('DELETE', `/agents/${encodeURIComponent(agentId)}`);
  if (res.status !== 200) return showError($('agent-delete-error'), res);
  location.assign('/studio/agents');
}

provider.addEventListener('change', showProvider);
$('agent-delete')?.addEventListener('click', confirmDelete);
form.addEventListener('submit', submit);
start().catch((err) => {
  formError.textContent = err.message;
});
