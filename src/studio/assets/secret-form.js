// Field errors of the secrets pages' forms (form-errors.js), worded for a person: "This name
// must …", and the first such field focused. Text through textContent only.
import { clearFieldErrors, showFieldErrors as placeFieldErrors } from './form-errors.js';

export { clearFieldErrors };

/**
 * Shows a 400's details beside their fields (`labels` names a field in words); true when at
 * least one found its field (else the caller shows the description in the form's own error line).
 */
export function showFieldErrors(form, res, labels = {}) {
  const { first } = placeFieldErrors(form, res?.body?.details, (path, message, again) => {
    if (again) return message;
    const field = path.split('.')[0];
    return `This ${labels[field] ?? field.replace(/_/g, ' ')} ${message}.`;
  });
  first?.focus();
  return first !== undefined;
}
