import { existsSync } from 'node:fs';
import type { Command } from '../platform/command.ts';
import { ConfigurationError } from '../config.ts';
import { openStoreToRead } from '../db/client.ts';
import { closeDatabase, openDatabase, type Database } from '../db/database.ts';
import { secretStoreOn } from '../secrets/contract.ts';
import { providerSecretProblems } from './external/credentials.ts';
import { voiceSettings } from './settings.ts';

/**
 * `voices check`: the voice settings and each external provider's secret, checked the way the
 * service checks them at start, without decrypting a secret or calling a vendor. Prints one
 * JSON line per configured provider; exits 1 when anything is wrong. A check writes nothing:
 * it reads the database only when there is one (no data directory, master key or database is
 * made for it), and then read-only. On PostgreSQL (MIMIC_DATABASE_URL) it connects without
 * applying migrations: a database not migrated yet fails the check with its error.
 */
export const VOICE_COMMANDS: Record<string, Command> = {
  'voices check': {
    usage: 'voices check',
    help:
      'Checks MIMIC_VOICE_* and that each provider in MIMIC_VOICE_PROVIDERS names an existing secret of the right type\n' +
      '(microsoft and elevenlabs: api_key; openai: bearer). Prints one JSON line per provider: {"provider","secret_id","base_url","ok","problem"?};\n' +
      'exits 1 when a setting or a secret is wrong. Reads secret rows only: nothing is decrypted, no vendor is called, nothing is written.\n' +
      'Takes no options: it checks the environment it runs in (docs/voices-external.md), as in\n' +
      `  MIMIC_VOICE_PROVIDERS='[{"type":"openai","secret_id":"sec_0mwzf8myc0000fe1858746b44831a"}]' npm run -s mimic -- voices check`,
    examples: ['voices check'],
    async run(ctx) {
      let settings;
      try {
        settings = voiceSettings.load(ctx.settings.env);
      } catch (e) {
        if (!(e instanceof ConfigurationError)) throw e;
        ctx.err(e.message);
        return 1;
      }
      const providers = settings.providers;
      if (providers.length === 0) {
        ctx.err('MIMIC_VOICE_PROVIDERS configures no external provider: only the embedded voices speak');
        return 0;
      }
      // No SQLite file yet: no secret exists, and each provider says so.
      const { database, databaseFile } = ctx.settings;
      const handle: Database | null = database ? openDatabase(ctx.settings) : existsSync(databaseFile) ? openStoreToRead(databaseFile) : null;
      try {
        const secrets = handle ? secretStoreOn(handle) : { getById: async () => undefined };
        let failed = 0;
        for (const p of providers) {
          const [problem] = await providerSecretProblems([p], secrets);
          if (problem) failed++;
          ctx.out(JSON.stringify({ provider: p.type, secret_id: p.secretId, base_url: p.baseUrl, ok: !problem, ...(problem ? { problem } : {}) }));
        }
        return failed ? 1 : 0;
      } finally {
        if (handle) await closeDatabase(handle);
      }
    },
  },
};
