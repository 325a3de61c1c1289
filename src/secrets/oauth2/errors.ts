/**
 * The two ways a refresh ends badly. Messages name the secret and the token endpoint's host
 * only: never a token, a client secret, the endpoint's path or the server's response body
 * (openid-client puts response bodies, tokens included, in its own errors' `cause`).
 */

/** The token endpoint refused the refresh token (invalid_grant): a person must authorize again. */
export class ReauthorizationRequired extends Error {
  constructor(readonly secretId: string) {
    super(`secret ${secretId} needs re-authorization: its refresh token is no longer accepted`);
    this.name = 'ReauthorizationRequired';
  }
}

/**
 * Any other failure: the stored tokens are unchanged and the next call tries again.
 * `reason` is an egress reason ('timeout', 'network', 'refused_address', 'tls', ...),
 * `http_<status>`, an OAuth error code the server sent ('invalid_client', ...),
 * 'invalid_response', 'lock_timeout' or 'store'.
 */
export class RefreshFailed extends Error {
  constructor(
    readonly secretId: string,
    readonly host: string,
    readonly reason: string,
  ) {
    super(`refreshing the access token of secret ${secretId} at host ${host} failed (${reason})`);
    this.name = 'RefreshFailed';
  }
}
