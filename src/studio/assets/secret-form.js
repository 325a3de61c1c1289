// Field errors of the secrets pages' forms: an API 400's details ({field, message}) shown
// beside the field they name (the <p class="field-error" data-field> its input points to with
// aria-describedby), and the first such field focused. Text through textContent only.

/** Empties every field error of a form. */
export function clearFieldErrors(form) {
  for (const p of form.querySelectorAll('.field-error')) p.textContent = '';
  for (const input of form.querySelectorAll('[aria-invalid]')) input.removeAttribute('aria-invalid');
}

/** The API's field name for a detail: `scopes/0` and `scopes[0]` are the scopes field. */
const fieldOf = (detail) => String(detail?.field ?? '').replace(/^\//, '').split(/[/[.]/)[0];

/**
 * Shows a 400's details beside their fields (`labels` names a field in words); true when at
 * least one found its field (else the caller shows the description in the form's own error line).
 */
export function showFieldErrors(form, res, labels = {}) {
  const details = Array.isArray(res?.body?.details) ? res.body.details : [];
  let first;
  for (const detail of details) {
    const slot = form.querySelector(`.field-error[data-field="${CSS.escape(fieldOf(detail))}"]`);
    if (!slot) continue;
    const what = labels[fieldOf(detail)] ?? fieldOf(detail).replace(/_/g, ' ');
    slot.textContent = slot.textContent ? `${slot.textContent} ${detail.message}` : `This ${what} ${detail.message}.`;
    const input = form.querySelector(`[name="${CSS.escape(fieldOf(detail))}"]`);
    input?.setAttribute('aria-invalid', 'true');
    first ??= input;
  }
  first?.focus();
  return first !== undefined;
}
