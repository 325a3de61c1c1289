import type { Harness } from '../helpers/harness.ts';

/** A browser's view of the studio for app.request tests: form posts from the studio's own origin, and the cookie it was given. */
export interface StudioClient {
  cookie?: string;
  post(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  get(path: string, headers?: Record<string, string>): Promise<Response>;
}

export const ORIGIN = 'http://mimic.test';

export function studioClient(h: Harness, env?: unknown): StudioClient {
  const client: StudioClient = {
    async post(path, fields, headers = {}) {
      const res = await h.app.request(
        path,
        {
          method: 'POST',
          headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded', ...(client.cookie ? { cookie: client.cookie } : {}), ...headers },
          body: new URLSearchParams(fields).toString(),
        },
        env,
      );
      remember(res);
      return res;
    },
    async get(path, headers = {}) {
      const res = await h.app.request(path, { headers: { ...(client.cookie ? { cookie: client.cookie } : {}), ...headers } }, env);
      remember(res);
      return res;
    },
  };
  const remember = (res: Response) => {
    const set = res.headers.get('set-cookie');
    if (set) {
      const pair = set.split(';')[0]!;
      client.cookie = pair.endsWith('=') ? undefined : pair;
    }
  };
  return client;
}

/** Signs in through the form; the client keeps the cookie. */
export async function signIn(h: Harness, email: string, password: string, env?: unknown): Promise<StudioClient> {
  const client = studioClient(h, env);
  const res = await client.post('/studio/sign-in', { email, password, next: '/studio/' });
  if (res.status !== 303) throw new Error(`sign-in answered ${res.status}`);
  return client;
}

/** The session's CSRF token, as the page's meta tag carries it (read through the accounts service). */
export async function csrfOf(h: Harness, client: StudioClient): Promise<string> {
  const { ACCOUNTS } = await import('../../src/accounts/contract.ts');
  const accounts = h.services.find(ACCOUNTS)!;
  const token = decodeURIComponent(client.cookie!.split('=')[1]!);
  const session = await accounts.sessionOf(token);
  return accounts.csrfToken(session!);
}
