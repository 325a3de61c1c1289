/**
 * The error kind only the videos module throws (declared in its module.ts, merged into the
 * one catalogue at start, src/errors.ts).
 */
export const VIDEO_ERRORS = {
  /** A resumable upload request without `Tus-Resumable: 1.0.0` (tus answers 412 Precondition Failed). */
  TusVersionError: 412,
} as const;
type VideoErrorKinds = typeof VIDEO_ERRORS;

declare module '../errors.ts' {
  interface ErrorKinds extends VideoErrorKinds {}
}
