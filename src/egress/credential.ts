/**
 * The credential an outbound call carries (a tool call, an agent's model, an external voice
 * vendor) and the header it travels in. Shared by secrets (which stores it), tools, agents and
 * voices, so it sits below them; redact.ts masks it in what comes back.
 */
import { ApiError } from '../errors.ts';

/**
 * A decrypted credential, as the executor needs it for one outbound call. It lives in
 * memory for the duration of that call only; nothing that renders a response may see it.
 */
export type Credential =
  | { type: 'bearer'; token: string }
  | { type: 'api_key'; apiKey: string; headerName: string }
  | { type: 'basic'; username: string; password: string }
  | { type: 'oauth2'; accessToken: string };

export type SecretType = 'bearer' | 'api_key' | 'basic' | 'oauth2';

/** The one fixed mask that stands for every credential in every response (as the hosted service shows it). */
export const SECRET_MASK = '•••••••••';

export const DEFAULT_API_KEY_HEADER = 'X-API-Key';

/** RFC 9110 token: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers the executor owns; an api_key header_name must not override them. */
const RESERVED_HEADERS = new Set(['accept', 'accept-encoding', 'content-type', 'content-length', 'host', 'connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'keep-alive', 'user-agent']);

/** The header that carries a credential, by secret type (also used by the external voice providers). */
export function authHeader(credential: Credential): Record<string, string> {
  switch (credential.type) {
    case 'bearer':
      return { authorization: headerValue(`Bearer ${credential.token}`) };
    case 'oauth2':
      return { authorization: headerValue(`Bearer ${credential.accessToken}`) };
    case 'basic':
      return { authorization: `Basic ${Buffer.from(`${credential.username}:${credential.password}`, 'utf8').toString('base64')}` };
    case 'api_key': {
      const name = credential.headerName;
      if (!HEADER_NAME.test(name) || RESERVED_HEADERS.has(name.toLowerCase())) {
        throw new ApiError('ConfigError', `The secret's header_name ${JSON.stringify(name)} cannot carry a credential`);
      }
      return { [name.toLowerCase()]: headerValue(credential.apiKey) };
    }
  }
}

/**
 * A credential with CR, LF or NUL would split the header (undici refuses it, with a message we
 * do not control); the error here never repeats the value.
 */
function headerValue(value: string): string {
  if (/[\r\n\0]/.test(value)) throw new ApiError('ConfigError', 'The secret holds characters that cannot be sent in an HTTP header');
  return value;
}
