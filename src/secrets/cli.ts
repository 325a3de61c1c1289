import type { Command } from '../cli/command.ts';
import { UsageError } from '../cli/command.ts';
import { valueOf } from '../cli/values.ts';
import { systemClock, randomId } from '../clock.ts';
import { withVault } from '../vault/cli.ts';
import { importOAuth2Grant, ImportError } from './oauth2-import.ts';

const FLAGS = ['user', 'provider', 'token-url', 'client-id', 'client-secret', 'access-token', 'refresh-token', 'expires-in'] as const;

export const SECRET_COMMANDS: Record<string, Command> = {
  'secrets import-oauth2': {
    usage:
      'secrets import-oauth2 --user ID --provider NAME --token-url URL --client-id ID --client-secret S --access-token T --refresh-token R --expires-in SECONDS [--secret ID]',
    help:
      'Stores an existing oauth2 grant as a secret of the user (what the studio will do after consent); prints the sanitized Secret as one JSON line.\n' +
      'The access token is refreshed at --token-url (https) when it expires; tools refer to the secret by its id.\n' +
      '  --secret ID   replace the grant of this oauth2 secret instead (re-authorization after a revoked refresh token)\n' +
      'Any credential value may be given as env:NAME to read it from that environment variable instead of the command line.',
    options: Object.fromEntries([...FLAGS, 'secret'].map((f) => [f, { type: 'string' as const }])),
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
      return withVault(ctx, async (vault, stores) => {
        try {
          const secret = await importOAuth2Grant({ secretStore: stores.secrets, vault, clock: systemClock, newId: randomId }, input);
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
