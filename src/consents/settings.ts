import { int, MiB } from '../config.ts';
import type { ConfigSection } from '../platform/module.ts';

export interface ConsentSettings {
  /** Largest consent video fetched. */
  maxVideoBytes: number;
  /** Longest consent video verified, seconds. */
  maxVideoSec: number;
}

/** The consents module's section of the configuration. */
export const consentSettings: ConfigSection<ConsentSettings> = {
  variables: [
    { name: 'MIMIC_CONSENT_MAX_BYTES', default: String(50 * MiB), description: 'largest consent video fetched (the hosted service refuses above 50 MB)' },
    { name: 'MIMIC_CONSENT_MAX_SECONDS', default: '120', description: 'longest consent video verified, seconds (10 to 600)' },
  ],
  load: (env) => ({
    maxVideoBytes: int(env, 'MIMIC_CONSENT_MAX_BYTES', 50 * MiB, 64 * 1024, 2048 * MiB),
    maxVideoSec: int(env, 'MIMIC_CONSENT_MAX_SECONDS', 120, 10, 600),
  }),
};
