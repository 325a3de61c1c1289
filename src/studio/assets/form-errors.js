// A form's field errors, shared by the studio's forms: the API's JsonError details
// ({field, message}) put beside the fields they name. A field's error slot is an element inside
// the form with `data-error-for` (a field path: `llm.model`) or a `.field-error` with `data-field`
// (a top-level field); the control it describes points to it with aria-describedby. Text only.

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

const SLOTS = '[data-error-for], .field-error[data-field]';
const slotField = (slot) => slot.dataset.errorFor ?? slot.dataset.field;

/**
 * Puts each of the API's `details` beside its field: in the error slot whose field is the
 * longest prefix of the detail's path, inside `form`; marks the control it describes invalid.
 * `describe(field, message, again)` may word a message for its field (`again`: the slot already
 * says something). Answers the messages no field took (for the form's summary) and the first
 * element with an error.
 */
export function showFieldErrors(form, details, describe = (_f, m) => m) {
  clearFieldErrors(form);
  const slots = [...form.querySelectorAll(SLOTS)];
  const unplaced = [];
  let first;
  for (const d of Array.isArray(details) ? details : []) {
    const path = fieldPath(d.field);
    const slot = slots
      .filter((s) => path === slotField(s) || path.startsWith(`${slotField(s)}.`))
      .sort((a, b) => slotField(b).length - slotField(a).length)[0];
    const text = describe(path, String(d.message ?? 'is not valid'), Boolean(slot?.textContent));
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

/** Empties every field error of a form. */
export function clearFieldErrors(form) {
  for (const s of form.querySelectorAll(SLOTS)) s.textContent = '';
  for (const c of form.querySelectorAll('[aria-invalid]')) c.removeAttribute('aria-invalid');
}
