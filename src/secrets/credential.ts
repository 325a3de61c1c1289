/**
 * A decrypted credential, as the tool executor needs it for one outbound call. It lives in
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
