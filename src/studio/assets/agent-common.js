// What the agents pages share: a presenter's picture, a model in a few words, the presenters'
// names, and the API's validation errors put beside the fields they name. Text only: nothing
// is parsed as HTML.
import { allPages } from './paging.js';

/** A round picture (decorative: the name beside it says who), or nothing without a URL. */
export function thumbnail(url, alt = '') {
  const img = document.createElement('img');
  img.className = 'thumb';
  img.alt = alt;
  img.loading = 'lazy';
  if (url) img.src = url;
  return img;
}

/** "gpt-4o-mini on localhost:11434", "custom model at models.example.com". */
export function modelSummary(llm) {
  const host = (url) => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  };
  if (llm.provider === 'custom') return `Custom model at ${host(llm.custom?.url ?? '')}`;
  const model = llm.model || 'gpt-4o-mini';
  return llm.base_url ? `${model} on ${host(llm.base_url)}` : `${model} on OpenAI`;
}

/** Every presenter (GET /clips/presenters, all pages): id → name. */
export async function presenterNames() {
  const { items } = await allPages('/clips/presenters?limit=100', 'presenters');
  return new Map(items.map((p) => [p.presenter_id, p.name]));
}

/**
 * A JsonError's field path in one spelling: `llm.tools[0]`, `allowed_domains/0` and
 * `/llm/base_url` all become dotted (`llm.tools.0`, `allowed_domains.0`, `llm.base_url`).
 */
export function fieldPath(field) {
  return String(field ?? '')
    .replace(/\[(\d+)\]/g, '.$1')
    .replace(/\//g, '.')
    .replace(/^\.+/, '');
}

/**
 * Puts each of the API's `details` ({field, message}) beside its field: in the error element
 * whose `data-error-for` is the longest prefix of the field's path, inside `form`; marks the
 * control it describes invalid. `describe(field, message)` may word a message for its field.
 * Answers the messages no field took (for the form's summary) and the first element with an error.
 */
export function showFieldErrors(form, details, describe = (_f, m) => m) {
  clearFieldErrors(form);
  const slots = [...form.querySelectorAll('[data-error-for]')];
  const unplaced = [];
  let first;
  for (const d of Array.isArray(details) ? details : []) {
    const path = fieldPath(d.field);
    const slot = slots
      .filter((s) => path === s.dataset.errorFor || path.startsWith(`${s.dataset.errorFor}.`))
      .sort((a, b) => b.dataset.errorFor.length - a.dataset.errorFor.length)[0];
    const text = describe(path, String(d.message ?? 'is not valid'));
    if (!slot) {
      unplaced.push(`${path}: ${text}`);
      continue;
    }
    slot.textContent = slot.textContent ? `${slot.textContent} ${text}` : text;
    const control = form.querySelector(`[aria-describedby~="${CSS.escape(slot.id)}"]`);
    control?.setAttribute('aria-invalid', 'true');
    first ??= control ?? slot;
  }
  return { unplaced, first };
}

export function clearFieldErrors(form) {
  for (const s of form.querySelectorAll('[data-error-for]')) s.textContent = '';
  for (const c of form.querySelectorAll('[aria-invalid]')) c.removeAttribute('aria-invalid');
}

/** Copies `text`; answers what to tell the person. `select` is the fallback's field (no clipboard API off https and loopback). */
export async function copyText(text, select) {
  try {
    await navigator.clipboard.writeText(text);
    return 'Copied to the clipboard.';
  } catch {
    select.select();
    return document.execCommand('copy') ? 'Copied to the clipboard.' : 'Selected: copy it with Ctrl+C (⌘C on a Mac).';
  }
}
