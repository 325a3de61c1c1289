// "Try it" on the tool editor: a form built from the saved tool's parameters (or the
// arguments as JSON), POST /tools/{id}/calls, and the answer as the API returns it (status,
// headers, body; credentials masked by the service). Errors in words. Text reaches the page
// through textContent and value only.
import { api, showError } from './api.js';
import { fieldsOf, parseJson } from './tool-schema.js';

const $ = (id) => document.getElementById(id);
const tryForm = $('try-form');
const tryFields = $('try-fields');
const tryJsonBox = $('try-json-box');
const tryJson = $('try-json');
const tryJsonError = $('try-json-error');
const tryError = $('try-error');
const tryResult = $('try-result');

/** The tool the form calls: the one last saved. */
let toolId;

let tryInputs = [];

function tryControl(field, index) {
  const id = `try-arg-${index}`;
  const wrap = document.createElement('div');
  wrap.className = 'try-field';
  const label = document.createElement('label');
  label.htmlFor = id;
  label.textContent = field.required ? `${field.name} (required)` : field.name;
  let control;
  if (field.kind === 'enum' || field.kind === 'boolean') {
    control = document.createElement('select');
    const values = field.kind === 'enum' ? field.schema.enum : [true, false];
    control.append(new Option(field.required ? 'Choose…' : '(not sent)', ''));
    values.forEach((v, i) => control.append(new Option(String(v), String(i))));
    control.dataset.values = JSON.stringify(values);
  } else if (field.kind === 'json') {
    control = document.createElement('textarea');
    control.className = 'code';
    control.rows = 3;
    control.spellcheck = false;
  } else {
    control = document.createElement('input');
    control.type = field.kind === 'string' ? 'text' : 'number';
    if (field.kind === 'integer') control.step = '1';
    if (field.kind === 'number') control.step = 'any';
    control.autocomplete = 'off';
  }
  control.id = id;
  const hint = document.createElement('p');
  hint.id = `${id}-hint`;
  hint.className = 'hint';
  hint.textContent = [field.description, field.kind === 'json' ? 'As JSON.' : ''].filter(Boolean).join(' ');
  const problem = document.createElement('p');
  problem.id = `${id}-error`;
  problem.className = 'error field-error';
  control.setAttribute('aria-describedby', `${hint.id} ${problem.id}`);
  wrap.append(label, control, hint, problem);
  return { field, control, problem, wrap };
}

function buildTryForm(schema) {
  tryInputs = fieldsOf(schema).map(tryControl);
  if (tryInputs.length) tryFields.replaceChildren(...tryInputs.map((t) => t.wrap));
  else {
    const p = document.createElement('p');
    p.textContent = 'This tool takes no arguments.';
    tryFields.replaceChildren(p);
  }
}

/** The arguments from the form: `{input}`, or `{problem}` with the control to fix. */
function argumentsFromForm() {
  const input = {};
  for (const t of tryInputs) {
    t.problem.textContent = '';
    t.control.removeAttribute('aria-invalid');
    const raw = t.control.value;
    if (raw === '') continue;
    let value;
    if (t.control.dataset.values) value = JSON.parse(t.control.dataset.values)[Number(raw)];
    else if (t.field.kind === 'integer' || t.field.kind === 'number') value = Number(raw);
    else if (t.field.kind === 'json') {
      const parsed = parseJson(raw);
      if (!parsed.ok) {
        t.problem.textContent = `Not valid JSON: line ${parsed.line}, column ${parsed.column}: ${parsed.message}.`;
        t.control.setAttribute('aria-invalid', 'true');
        return { problem: t.control };
      }
      value = parsed.value;
    } else value = raw;
    input[t.field.name] = value;
  }
  return { input };
}

function argumentsFromJson() {
  tryJsonError.textContent = '';
  tryJson.removeAttribute('aria-invalid');
  const parsed = parseJson(tryJson.value.trim() === '' ? '{}' : tryJson.value);
  const problem = !parsed.ok ? `Not valid JSON: line ${parsed.line}, column ${parsed.column}: ${parsed.message}.`
    : parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value) ? 'The arguments must be a JSON object: { "name": value, … }.' : '';
  if (problem) {
    tryJsonError.textContent = problem;
    tryJson.setAttribute('aria-invalid', 'true');
    return { problem: tryJson };
  }
  return { input: parsed.value };
}

const jsonMode = () => tryForm.elements['try-mode'].value === 'json';

function switchMode() {
  if (jsonMode()) {
    const { input } = argumentsFromForm();
    tryJson.value = JSON.stringify(input ?? {}, null, 2);
  }
  tryFields.hidden = jsonMode();
  tryJsonBox.hidden = !jsonMode();
}

function showAnswer(result) {
  const { output } = result;
  $('try-result-status').textContent = `${output.status} ${output.status < 400 ? '(the upstream succeeded)' : '(the upstream answered with an error)'}`;
  $('try-result-duration').textContent = `${Math.round(result.duration_ms)} ms`;
  $('try-result-call').textContent = result.call_id;
  const headers = $('try-result-headers');
  headers.replaceChildren();
  for (const [name, value] of Object.entries(output.headers)) {
    const dt = document.createElement('dt');
    dt.textContent = name;
    const dd = document.createElement('dd');
    dd.textContent = value;
    headers.append(dt, dd);
  }
  $('try-result-body').textContent = typeof output.body === 'string' ? output.body : JSON.stringify(output.body, null, 2);
  tryResult.hidden = false;
  tryResult.focus();
}

/** An error from the call in words: the API's description, and each field it names. */
function showCallError(res) {
  showError(tryError, res);
  const details = Array.isArray(res.body?.details) ? res.body.details.filter((d) => typeof d?.field === 'string') : [];
  if (details.length > 1) tryError.textContent += ` (${details.map((d) => `${d.field || 'the arguments'} ${d.message}`).join('; ')})`;
}

async function tryIt(event) {
  event.preventDefault();
  tryError.textContent = '';
  const args = jsonMode() ? argumentsFromJson() : argumentsFromForm();
  if (args.problem) return args.problem.focus();
  const button = $('try-call');
  button.disabled = true;
  button.textContent = 'Calling…';
  try {
    const res = await api('POST', `/tools/${encodeURIComponent(toolId)}/calls`, { input: args.input });
    if (res.status !== 200) {
      tryResult.hidden = true;
      return showCallError(res);
    }
    showAnswer(res.body);
  } finally {
    button.disabled = false;
    button.textContent = 'Call the tool';
  }
}

/** Shows "Try it" for this saved tool: its arguments' form, and the calls go to it. */
export function showTry(tool) {
  toolId = tool.id;
  buildTryForm(tool.schema.parameters);
}

tryForm.addEventListener('submit', tryIt);
for (const radio of tryForm.elements['try-mode']) radio.addEventListener('change', switchMode);
