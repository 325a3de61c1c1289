export type EgressReason =
  | 'bad_url'
  | 'credentials_in_url'
  | 'scheme'
  | 'refused_address'
  | 'dns'
  | 'timeout'
  | 'too_large'
  | 'network'
  | 'tls'
  /** The peer answered with a status the operation cannot use (download/upload only). */
  | 'status'
  /** `download`'s `accept` refused the response's content type. */
  | 'content_type'
  /** `stream`'s caller cancelled it. */
  | 'cancelled';

/**
 * A refused or failed outbound request. The message names the host only: never the path,
 * the query string (signed URLs carry credentials there) or user info.
 */
export class EgressError extends Error {
  constructor(
    readonly reason: EgressReason,
    message: string,
    /** The HTTP status, for reason `status`. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'EgressError';
  }
}

export const isEgressError = (err: unknown): err is EgressError => err instanceof EgressError;

/**
 * Egress refusals that waiting cannot change: the URL's shape and scheme, credentials in it,
 * and an address the policy refuses (a literal, or what the host resolves to). A job or a
 * webhook that meets one fails at once instead of being retried; a request that carries one
 * is a 400.
 */
export const POLICY_REFUSALS: ReadonlySet<EgressReason> = new Set(['bad_url', 'scheme', 'credentials_in_url', 'refused_address']);

export const isPolicyRefusal = (err: unknown): err is EgressError => err instanceof EgressError && POLICY_REFUSALS.has(err.reason);
