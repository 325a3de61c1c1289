/** An email as accounts are keyed by it: trimmed, NFKC-normalised, lower-cased (so `Ann@X.org ` and `ann@x.org` are one account). */
export function normalizeEmail(email: string): string {
  return email.trim().normalize('NFKC').toLowerCase();
}

/** Loose on purpose: one @, something on each side, no spaces; the operator typed it. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+$/;
export { EMAIL_MAX_LENGTH } from './contract.ts';
