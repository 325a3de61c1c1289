import type { Command } from '../cli/command.ts';
import { ConfigurationError } from '../config.ts';
import { withVault } from '../vault/cli.ts';
import { providerSecretProblems } from './external/credentials.ts';
import { voiceSettings } from './settings.ts';

/**
 * `voices check`: the voice settings and each external provider's secret, checked the way the
 * service checks them at start, without decrypting a secret or calling a vendor. Prints one
 * JSON line per configured provider; exits 1 when anything is wrong.
 */
export const VOICE_COMMANDS: Record<string, Command> = {
  'voices check': {
    usage: 'voices check',
    help:
      'Checks MIMIC_VOICE_* and that each provider in MIMIC_VOICE_PROVIDERS names an existing secret of the right type\n' +
      '(microsoft and elevenlabs: api_key; openai: bearer). Prints one JSON line per provider: {"provider","secret_id","base_url","ok","problem"?};\n' +
      'exits 1 when a setting or a secret is wrong. Reads secret rows only: nothing is decrypted and no vendor is called.\n' +
      'Takes no options: it checks the environment it runs in (docs/voices-external.md), as in\n' +
      `  MIMIC_VOICE_PROVIDERS='[{"type":"openai","secret_id":"sec_0mwzf8myc0000fe1858746b44831a"}]' npm run -s mimic -- voices check`,
    examples: ['voices check'],
    async run(ctx) {
      let settings;
      try {
        settings = voiceSettings.load(ctx.config.env);
      } catch (e) {
        if (!(e instanceof ConfigurationError)) throw e;
        ctx.err(e.message);
        return 1;
      }
      const providers = settings.providers;
      return withVault(ctx, async (_vault, stores) => {
        let failed = 0;
        for (const p of providers) {
          const [problem] = await providerSecretProblems([p], stores.secrets);
          if (problem) failed++;
          ctx.out(JSON.stringify({ provider: p.type, secret_id: p.secretId, base_url: p.baseUrl, ok: !problem, ...(problem ? { problem } : {}) }));
        }
        if (providers.length === 0) ctx.err('MIMIC_VOICE_PROVIDERS configures no external provider: only the embedded voices speak');
        return failed ? 1 : 0;
      });
    },
  },
};
