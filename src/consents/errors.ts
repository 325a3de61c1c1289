/**
 * The error kinds only consents throw, with their statuses: the module declares them
 * (`errors` in module.ts) and the services merge them into the one catalogue at start
 * (src/errors.ts); the augmentation below makes them kinds `ApiError` accepts.
 */
export const CONSENT_ERRORS = {
  /** A consent whose 30 minutes ran out before its video was uploaded; it can never be used. */
  ConsentExpiredError: 400,
  /** An avatar's consent that is not verified, not yours, for another name, or used already. */
  ConsentError: 400,
} as const;
type ConsentErrorKinds = typeof CONSENT_ERRORS;

declare module '../errors.ts' {
  interface ErrorKinds extends ConsentErrorKinds {}
}
