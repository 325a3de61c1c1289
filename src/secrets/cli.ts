import { UsageError, valueOf, type Command, type OptionSpec } from '../platform/command.ts';
import { systemClock, randomId } from '../clock.ts';
import { withVault } from '../vault/cli.ts';
import { importOAuth2Grant, ImportError } from './oauth2-import.ts';
import { secretStoreOn } from './store-pg.ts';

const GOOGLE = '--provider google --token-url https://oauth2.googleapis.com/token --client-id 1234.apps.googleusercontent.com \\\n      --client-secret env:CLIENT_SECRET --access-token env:ACCESS_TOKEN --refresh-token env:REFRESH_TOKEN --expires-in 3599';
const FROM_ENV = '; env:NAME reads it from that environment variable (keeps it out of ps and shell history)';
const OPTIONS: Record<string, OptionSpec> = {
  user: { type: 'string', value: 'ID', description: 'the user who owns the secret (usr_...)', default: 'required' },
  provider: { type: 'string', value: 'NAME', description: 'who issued the grant, 1 to 200 characters (google, github, ...), shown on the secret', default: 'required' },
  'token-url': { type: 'string', value: 'URL', description: "the provider's token endpoint, an https URL without user:password@, where the access token is refreshed", default: 'required' },
  'client-id': { type: 'string', value: 'ID', description: 'the OAuth client id the grant was issued to', default: 'required' },
  'client-secret': { type: 'string', value: 'S|env:NAME', description: `the OAuth client secret, stored encrypted${FROM_ENV}`, default: 'required' },
  'access-token': { type: 'string', value: 'T|env:NAME', description: `the current access token, stored encrypted${FROM_ENV}`, default: 'required' },
  'refresh-token': { type: 'string', value: 'R|env:NAME', description: `the refresh token, stored encrypted${FROM_ENV}`, default: 'required' },
  'expires-in': { type: 'string', value: 'SECONDS', description: 'seconds until the access token expires, a whole number >= 0 (the expires_in of the token answer); 0 refreshes it before the first call', default: 'required' },
  secret: { type: 'string', value: 'ID', description: "replace the grant of this existing oauth2 secret (sec_...) instead of creating one: re-authorization after its refresh token was revoked (status needs_reauthorization); the tools that use it keep its id", default: 'a new secret' },
};

export const SECRET_COMMANDS: Record<string, Command> = {
  'secrets import-oauth2': {
    usage:
      'secrets import-oauth2 --user ID --provider NAME --token-url URL --client-id ID --client-secret S --access-token T --refresh-token R --expires-in SECONDS [--secret ID]',
    help:
      'Stores an existing oauth2 grant as a secret of the user (what the studio will do after consent); prints the sanitized Secret as one JSON line.\n' +
      'The access token is refreshed at --token-url when it expires; tools refer to the secret by its id.\n' +
      'Any value may be given as env:NAME to read it from that environment variable instead of the command line.',
    options: OPTIONS,
    examples: [
      `secrets import-oauth2 --user usr_0mwzf8myc0000fe1858746b44831a ${GOOGLE}`,
      `secrets import-oauth2 --secret sec_0mwzf8myc0000fe1858746b44831a --user usr_0mwzf8myc0000fe1858746b44831a ${GOOGLE}`,
    ],
    async run(ctx, v) {
      const env = process.env;
      const expires = valueOf(v, 'expires-in', env);
      if (!/^\d{1,10}$/.test(expires)) throw new UsageError('--expires-in must be a whole number of seconds');
      const input = {
        userId: valueOf(v, 'user', env),
        provider: valueOf(v, 'provider', env),
        tokenUrl: valueOf(v, 'token-url', env),
        clientId: valueOf(v, 'client-id', env),
        clientSecret: valueOf(v, 'client-secret', env),
        accessToken: valueOf(v, 'access-token', env),
        refreshToken: valueOf(v, 'refresh-token', env),
        expiresIn: Number(expires),
        ...(typeof v.secret === 'string' ? { secretId: v.secret } : {}),
      };
      return withVault(ctx, async (vault, handle) => {
        try {
          const secret = await importOAuth2Grant({ secretStore: secretStoreOn(handle), vault, clock: systemClock, newId: randomId }, input);
          ctx.out(JSON.stringify(secret));
          return 0;
        } catch (e) {
          if (!(e instanceof ImportError)) throw e;
          ctx.err(e.message);
          return 1;
        }
      });
    },
  },
};
