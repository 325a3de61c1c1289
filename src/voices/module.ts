import { defineModule } from '../platform/module.ts';
import { provide } from '../platform/service-key.ts';
import { VOICES } from './contract.ts';
import { SECRET_STORE } from '../secrets/contract.ts';
import { AUDIT } from '../audit/contract.ts';
import { createVoiceCatalogue } from './catalogue.ts';
import { createEspeakProvider } from './espeak/index.ts';
import { createFliteProvider } from './flite/index.ts';
import { createExternalProviders, externalDeps, providerSecretProblems } from './external/index.ts';
import { VoicePool } from './pool.ts';
import { voiceRoutes } from './routes.ts';
import { voiceSettings } from './settings.ts';
import { VOICE_COMMANDS } from './cli.ts';

/**
 * Voices: the embedded engines (Flite, eSpeak NG) on a worker-thread pool, the configured
 * external vendors, `GET /tts/voices`, and the catalogue it provides to the speaking
 * capabilities (clips, talks, streams, agents, avatars) as `VOICES`.
 */
export const voicesModule = defineModule({
  name: 'voices',
  config: voiceSettings,
  commands: VOICE_COMMANDS,
  needs: [SECRET_STORE, AUDIT],
  provides: [VOICES],
  create: (p, s, services) => {
    const double = p.options.voices;
    if (double) return { provides: [provide(VOICES, double)], routes: voiceRoutes(double) };
    const pool = new VoicePool({ size: s.workers });
    const secrets = services.get(SECRET_STORE);
    const external = createExternalProviders(s.providers, externalDeps(p, s, { secrets, audit: services.get(AUDIT) }));
    const voices = createVoiceCatalogue({
      // Flite first: among equally close voices the catalogue picks the earlier, and Flite's English sounds more natural.
      providers: [createFliteProvider({ pool }), createEspeakProvider({ pool }), ...external],
      fallback: s.fallback,
      onListError: (provider) => p.log.warn('voices: a provider is left out of the voice list', { provider }),
    });
    return {
      provides: [provide(VOICES, voices)],
      routes: voiceRoutes(voices),
      start() {
        // The first synthesis after start would otherwise pay the engines' warm-up (1-2 s).
        pool.warm();
        void providerSecretProblems(s.providers, secrets).then(
          (problems) => problems.forEach((problem) => p.log.warn(`voices: ${problem}`)),
          () => {},
        );
      },
      async stop() {
        await pool.close();
      },
    };
  },
});
