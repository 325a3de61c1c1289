/**
 * The one error catalogue. Every error a client can see has a kind from it, and the catalogue
 * alone decides its HTTP status. Domain code throws `ApiError`; the HTTP boundary renders
 * `{kind, description, details?}` (a JsonError) and never anything else.
 *
 * The core kinds are here; a kind only one capability throws lives in that capability's
 * folder (better-auth's plugins carry their `$ERROR_CODES` the same way), in two halves:
 * its type, added to the `ErrorKinds` bucket by declaration merging, and its status, the
 * module's `errors` (src/platform/module.ts), merged into this catalogue when the services
 * start (`declareErrorKinds`). src/consents/errors.ts is an example.
 */
const CORE_ERRORS = {
  BadRequestError: 400,
  ValidationError: 400,
  InvalidFileSizeError: 400,
  InvalidImageResolutionError: 400,
  /** An audio longer (or shorter) than a script or upload may be. */
  InvalidAudioDurationError: 400,
  ConfigError: 400,
  InvalidFaceError: 400,
  /**
   * A live stream call without the stream's session_id, or with another (the agents SDK
   * matches the exact description). Core: streams and agents' chat on a stream both answer it.
   */
  SessionError: 400,
  AuthorizationError: 401,
  InsufficientCreditsError: 402,
  PermissionError: 403,
  NotFoundError: 404,
  MethodNotAllowedError: 405,
  ConflictError: 409,
  PayloadTooLargeError: 413,
  UnsupportedMediaTypeError: 415,
  TooManyRequestsError: 429,
  InternalServerError: 500,
  /** A tool's upstream could not be reached or sent something unusable. */
  BadGatewayError: 502,
  ServiceUnavailableError: 503,
  /** A tool's upstream did not answer in time. */
  GatewayTimeoutError: 504,
} as const;
type CoreErrorKinds = typeof CORE_ERRORS;

/**
 * Every error kind with its status: the core's, and each capability's, added from its own
 * folder by declaration merging (`declare module '../errors.ts' { interface ErrorKinds
 * extends ConsentErrorKinds {} }`). Two capabilities giving one kind two statuses do not compile.
 */
export interface ErrorKinds extends CoreErrorKinds {}

export type ErrorKind = keyof ErrorKinds;

/** A module's own kinds with their statuses: the runtime half of its `ErrorKinds` augmentation. */
export type ErrorCatalogue = { readonly [K in ErrorKind]?: ErrorKinds[K] };

/** Each kind declared so far, with its status and who declared it: the core's from the start, a module's once services start. */
const declared = new Map<string, { status: number; owner: string }>(Object.entries(CORE_ERRORS).map(([kind, status]) => [kind, { status, owner: 'the core (src/errors.ts)' }]));

/**
 * Merges the modules' error kinds into the catalogue, all or nothing: a kind given two
 * different statuses (by two modules, or by a module and the core) fails, naming both.
 */
export function declareErrorKinds(modules: readonly { name: string; errors?: ErrorCatalogue }[]): void {
  const merged = new Map(declared);
  for (const m of modules) {
    for (const [kind, status] of Object.entries(m.errors ?? {}) as [string, number][]) {
      const before = merged.get(kind);
      const owner = `module ${m.name}`;
      if (before && before.status !== status) {
        throw new Error(`error kind ${kind} is declared twice with different statuses: ${before.status} by ${before.owner}, ${status} by ${owner}`);
      }
      if (!before) merged.set(kind, { status, owner });
    }
  }
  for (const [kind, entry] of merged) declared.set(kind, entry);
}

/** The HTTP status of a kind; undefined when no module declared it (a defect: the boundary answers 500 and logs it). */
export const errorStatus = (kind: string): number | undefined => declared.get(kind)?.status;

/** Kinds that end an animation (or other render) in `error`; they live on the record, not in a response. */
export const RENDER_ERROR_KINDS = [
  'FaceError',
  'SourceError',
  'DriverError',
  'LogoError',
  /** The overlay video could not be decoded. */
  'OverlayError',
  /** The background image could not be fetched or decoded. */
  'BackgroundError',
  /** Avatar training: the footage does not allow it (no face in the idle window, undecodable, a window outside it). */
  'FootageError',
  /** A check that needs the input's bytes, run at render time for inputs fetched then (https URLs). */
  'InvalidFileSizeError',
  'InvalidImageResolutionError',
  'InvalidFaceError',
  'ConfigError',
  'VideoEnhanceError',
  /** The result could not be delivered to result_url for a reason retrying cannot change (the egress policy refuses it). */
  'ResultUrlError',
  'UnknownError',
] as const;
export type RenderErrorKind = (typeof RENDER_ERROR_KINDS)[number];

/**
 * `description`, after turning stack capture off for an error of a declared client kind
 * (status below 500): an expected answer such as a 400 needs no stack, and capturing one is
 * most of what building the error costs. ApiError's constructor turns it back on at once.
 */
function withoutStackIfExpected(kind: string, description: string): string {
  const status = errorStatus(kind);
  if (status !== undefined && status < 500) Error.stackTraceLimit = 0;
  return description;
}

export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly description: string,
    readonly details?: unknown,
  ) {
    // An undeclared kind (a defect, logged with its stack) and a 5xx keep their full stack.
    const stackLimit = Error.stackTraceLimit;
    super(withoutStackIfExpected(kind, description));
    Error.stackTraceLimit = stackLimit;
    this.name = 'ApiError';
  }

  /** From the merged catalogue; undefined for a kind no module declared (see errorStatus). */
  get status(): number | undefined {
    return errorStatus(this.kind);
  }
}

/** A failure of a render job, recorded on the record as `error: {kind, description}`. */
export class RenderError extends Error {
  constructor(
    readonly kind: RenderErrorKind,
    readonly description: string,
  ) {
    super(description);
    this.name = 'RenderError';
  }
}

export const notFound = (what: string): ApiError => new ApiError('NotFoundError', `${what} not found`);
