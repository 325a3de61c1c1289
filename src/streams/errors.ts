/**
 * The error kinds only streams throw, with their statuses: the module declares them
 * (`errors` in module.ts) and the services merge them into the one catalogue at start
 * (src/errors.ts); the augmentation below makes them kinds `ApiError` accepts.
 */
export const STREAM_ERRORS = {
  /** A live stream call without the stream's session_id, or with another (the agents SDK matches the exact description). */
  SessionError: 400,
} as const;
type StreamErrorKinds = typeof STREAM_ERRORS;

declare module '../errors.ts' {
  interface ErrorKinds extends StreamErrorKinds {}
}
