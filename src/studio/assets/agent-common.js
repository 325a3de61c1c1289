// What the agents pages share: a presenter's picture, a model in a few words, the presenters'
// names, and copying a value (a key, a snippet). Text only: nothing is parsed as HTML. Their
// field errors are form-errors.js's.
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
