/**
 * The one error catalogue. Every error a client can see has a kind from this table, and
 * the table alone decides its HTTP status. Domain code throws `ApiError`; the HTTP boundary
 * renders `{kind, description, details?}` (a JsonError) and never anything else.
 */
export const ERROR_STATUS = {
  BadRequestError: 400,
  ValidationError: 400,
  InvalidFileSizeError: 400,
  InvalidImageResolutionError: 400,
  /** An audio longer (or shorter) than a script or upload may be. */
  InvalidAudioDurationError: 400,
  ConfigError: 400,
  InvalidFaceError: 400,
  /** A live stream call without the stream's session_id, or with another (the agents SDK matches the exact description). */
  SessionError: 400,
  /** A consent whose 30 minutes ran out before its video was uploaded; it can never be used. */
  ConsentExpiredError: 400,
  /** An avatar's consent that is not verified, not yours, for another name, or used already. */
  ConsentError: 400,
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

export type ErrorKind = keyof typeof ERROR_STATUS;

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

export class ApiError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly description: string,
    readonly details?: unknown,
  ) {
    super(description);
    this.name = 'ApiError';
  }

  get status(): number {
    return ERROR_STATUS[this.kind];
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
