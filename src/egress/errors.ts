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
