// The tool editor: the fields of POST/PUT /tools, the parameters' JSON Schema checked as it is
// typed, and "Try it" once the tool is saved (tool-try.js). The check is two-fold: the JSON
// itself here (the place of a syntax error by line and column), then POST /tools/validate, the
// service's own checks without saving (debounced): once with the person's parameters alone (is
// it a JSON Schema the service accepts?) and once with the whole form (what else would POST
// /tools refuse?).
// Text reaches the page through textContent and value only.
import { api, showError } from './api.js';
import { link } from './dom.js';
import { locate, parseJson } from './tool-schema.js';
import { showTry } from './tool-try.js';
import { secretLabel } from './tool-view.js';

const $ = (id) => document.getElementById(id);
const form = $('tool-form');
const title = $('tool-title');
const status = $('tool-status');
const formError = $('tool-form-error');
const saveButton = $('tool-save');
const parameters = $('tool-parameters');
const verdict = $('parameters-verdict');
const problems = $('parameters-problems');
const gotoButton = $('parameters-goto');
const serverFields = $('server-fields');
const secretSelect = $('tool-secret');
const trySection = $('try');
const tryClient = $('try-client');
const tryUnsaved = $('try-unsaved');

/** The API's field names → the control that holds each (its error line is `<id>-error`). */
const CONTROLS = {
  name: 'tool-name',
  description: 'tool-description',
  provider: 'tool-provider',
  'config.url': 'tool-url',
  'config.method': 'tool-method',
  'config.timeout_ms': 'tool-timeout',
  'auth.secret_id': 'tool-secret',
  auth: 'tool-secret',
};
const CHECK_DELAY_MS = 350;

let toolId = form.dataset.toolId || undefined;
let saved;
let submitted = false;
const touched = new Set();
let checkTimer;
let checkRound = 0;
/** Where the first problem of the parameters is in their text (a syntax error, or what the service refused). */
let problemAt;

const kind = () => form.elements.kind.value;

function bodyOf(parsedParameters) {
  const value = (id) => $(id).value;
  const body = {
    name: value('tool-name').trim(),
    description: value('tool-description').trim(),
    provider: value('tool-provider').trim(),
    schema: { parameters: parsedParameters },
  };
  if (kind() === 'client') return { ...body, config: { type: 'client' } };
  const config = { type: 'server', url: value('tool-url').trim(), method: value('tool-method') };
  const timeout = value('tool-timeout').trim();
  if (timeout !== '') config.timeout_ms = Number(timeout);
  const secretId = value('tool-secret');
  return { ...body, config, ...(secretId ? { auth: { secret_id: secretId } } : {}) };
}

// --- checking as the person types --------------------------------------------------------

function fieldProblem(controlId, text) {
  const control = $(controlId);
  const line = $(`${controlId}-error`);
  const show = text && (submitted || touched.has(controlId));
  line.textContent = show ? text : '';
  if (show) control.setAttribute('aria-invalid', 'true');
  else control.removeAttribute('aria-invalid');
}

function showSchemaVerdict(ok, text, list = []) {
  verdict.textContent = `${ok ? '✓' : '✗'} ${text}`;
  verdict.className = `verdict ${ok ? 'ok' : 'bad'}`;
  problems.replaceChildren(
    ...list.map((p) => {
      const li = document.createElement('li');
      li.textContent = p;
      return li;
    }),
  );
  if (ok) parameters.removeAttribute('aria-invalid');
  else parameters.setAttribute('aria-invalid', 'true');
}

/** `schema.parameters.properties.city.type` → `properties.city.type` (the place inside the person's schema). */
const insideSchema = (field) => field.replace(/^schema\.parameters\.?/, '') || 'the schema';

/** The whole form's other problems, each beside its field (once touched, or after a save was tried). */
function showFormProblems(res) {
  const byControl = new Map();
  const rest = [];
  for (const d of res && res.status >= 400 ? (res.body?.details ?? []) : []) {
    if (typeof d?.field !== 'string' || d.field.startsWith('schema')) continue;
    const control = CONTROLS[d.field];
    if (control) byControl.set(control, byControl.get(control) ?? `${d.message}`);
    else rest.push(`${d.field} ${d.message}`);
  }
  for (const control of new Set(Object.values(CONTROLS))) fieldProblem(control, byControl.get(control));
  const unplaced = rest.length ? rest.join('; ') : res && res.status >= 400 && !(res.body?.details ?? []).length ? res.body?.description : '';
  if (submitted) formError.textContent = unplaced ?? '';
}

async function check() {
  const round = ++checkRound;
  const text = parameters.value;
  const parsed = parseJson(text);
  problemAt = parsed.ok ? undefined : parsed;
  gotoButton.hidden = parsed.ok;
  if (!parsed.ok) {
    showSchemaVerdict(false, `Not valid JSON: line ${parsed.line}, column ${parsed.column}: ${parsed.message}.`);
    showFormProblems(undefined);
    return;
  }
  // The parameters alone (stand-ins for the rest, a client tool: nothing else to refuse), and the whole form.
  const alone = { name: 'schema_check', description: 'schema check', provider: 'studio', schema: { parameters: parsed.value }, config: { type: 'client' } };
  const [schemaRes, formRes] = await Promise.all([api('POST', '/tools/validate', alone), api('POST', '/tools/validate', bodyOf(parsed.value))]);
  if (round !== checkRound) return; // the person typed on: a newer check is coming
  if (schemaRes.status === 200) {
    showSchemaVerdict(true, 'Valid JSON Schema: the service accepts these parameters.');
  } else if (schemaRes.status === 400 || schemaRes.status === 404) {
    const details = (schemaRes.body?.details ?? []).filter((d) => typeof d?.field === 'string');
    const list = details.map((d) => {
      const at = locate(text, d.field.split('.').slice(2));
      problemAt ??= at;
      return `${at ? `Line ${at.line}, column ${at.column}: ` : ''}${insideSchema(d.field)}: ${d.message}`;
    });
    gotoButton.hidden = !problemAt;
    showSchemaVerdict(false, 'Not a JSON Schema the service accepts:', list.length ? list : [schemaRes.body?.description ?? 'refused']);
  } else {
    verdict.textContent = '';
    showError(formError, schemaRes);
    return;
  }
  // URL placeholders are checked against the parameters: the one schema-side problem of the whole form.
  showFormProblems(formRes);
}

function scheduleCheck() {
  clearTimeout(checkTimer);
  checkTimer = setTimeout(() => check().catch((err) => (formError.textContent = err.message)), CHECK_DELAY_MS);
}

// --- loading and saving ------------------------------------------------------------------

function showKind() {
  serverFields.hidden = kind() !== 'server';
}

function fill(tool) {
  $('tool-name').value = tool.name;
  $('tool-description').value = tool.description;
  $('tool-provider').value = tool.provider;
  form.elements.kind.value = tool.config.type;
  if (tool.config.type === 'server') {
    $('tool-url').value = tool.config.url;
    $('tool-method').value = tool.config.method.toUpperCase();
    $('tool-timeout').value = tool.config.timeout_ms ?? '';
  }
  secretSelect.value = tool.auth?.secret_id ?? '';
  if (tool.auth && secretSelect.value !== tool.auth.secret_id) {
    // A secret the list did not bring (another page of secrets): still shown, by id.
    secretSelect.append(new Option(tool.auth.secret_id, tool.auth.secret_id, true, true));
  }
  parameters.value = `${JSON.stringify(tool.schema.parameters, null, 2)}\n`;
  showKind();
}

function showSaved(tool) {
  saved = tool;
  toolId = tool.id;
  form.dataset.toolId = tool.id;
  title.textContent = `Tool ${tool.name}`;
  document.title = `Tool ${tool.name} · mimic studio`;
  saveButton.textContent = 'Save changes';
  tryUnsaved.hidden = true;
  trySection.hidden = tool.config.type !== 'server';
  tryClient.hidden = tool.config.type === 'server';
  showTry(tool);
}

async function loadSecrets() {
  const res = await api('GET', '/secrets?limit=100');
  if (res.status !== 200 || !Array.isArray(res.body)) return;
  for (const s of res.body) secretSelect.append(new Option(secretLabel(s), s.id));
}

async function load() {
  await loadSecrets();
  if (toolId) {
    const res = await api('GET', `/tools/${encodeURIComponent(toolId)}`);
    form.setAttribute('aria-busy', 'false');
    if (res.status !== 200) {
      // No such tool of yours (deleted, or a wrong address): nothing to edit, and the way back.
      form.hidden = true;
      const back = link('/studio/tools', 'Back to your tools');
      status.replaceChildren(res.status === 404 ? 'There is no such tool: it may have been deleted. ' : `${res.body?.description ?? `The service answered ${res.status}.`} `, back);
      return;
    }
    fill(res.body);
    showSaved(res.body);
  }
  await check();
}

async function save(event) {
  event.preventDefault();
  submitted = true;
  clearTimeout(checkTimer);
  formError.textContent = '';
  status.textContent = '';
  const parsed = parseJson(parameters.value);
  if (!parsed.ok) {
    await check();
    formError.textContent = 'Fix the parameters first: they are not valid JSON.';
    parameters.focus();
    return;
  }
  saveButton.disabled = true;
  try {
    const creating = !toolId;
    const res = await api(creating ? 'POST' : 'PUT', creating ? '/tools' : `/tools/${encodeURIComponent(toolId)}`, bodyOf(parsed.value));
    if (res.status !== 200 && res.status !== 201) {
      await check();
      showError(formError, res);
      form.querySelector('[aria-invalid="true"]')?.focus();
      return;
    }
    if (creating) history.replaceState(null, '', `/studio/tools/${encodeURIComponent(res.body.id)}`);
    showSaved(res.body);
    submitted = false;
    status.textContent = creating ? `Tool ${res.body.name} created.` : 'Changes saved.';
    status.focus();
  } finally {
    saveButton.disabled = false;
  }
}

// --- wiring ------------------------------------------------------------------------------

form.addEventListener('input', (event) => {
  if (event.target.id) touched.add(event.target.id);
  if (event.target.name === 'kind') showKind();
  if (saved) tryUnsaved.hidden = false;
  scheduleCheck();
});
form.addEventListener('change', (event) => {
  if (event.target.name === 'kind') showKind();
});
form.addEventListener('submit', save);
gotoButton.addEventListener('click', () => {
  if (!problemAt) return;
  parameters.focus();
  parameters.setSelectionRange(problemAt.offset, Math.min(problemAt.offset + 1, parameters.value.length));
});
showKind();
load().catch((err) => {
  formError.textContent = err.message;
});
