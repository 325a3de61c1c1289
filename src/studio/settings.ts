import { isIP } from 'node:net';
import { ConfigurationError } from '../config.ts';
import type { ConfigSection } from '../platform/module.ts';

/** The studio module's settings (docs/configuration.md, "Studio"). */
export interface StudioSettings {
  /** Addresses of the reverse proxies whose X-Forwarded-For names the client (sign-in throttling per address). */
  trustedProxies: readonly string[];
}

export const studioSettings: ConfigSection<StudioSettings> = {
  variables: [
    {
      name: 'MIMIC_TRUSTED_PROXIES',
      default: '',
      description: 'comma list of proxy IP addresses whose X-Forwarded-For is believed (empty: the socket address is the client)',
    },
  ],
  load: (env) => {
    const raw = env.MIMIC_TRUSTED_PROXIES ?? '';
    const list = raw.split(',').map((s) => s.trim()).filter((s) => s !== '');
    for (const a of list) {
      if (isIP(a) === 0) throw new ConfigurationError(`MIMIC_TRUSTED_PROXIES must be a comma list of IP addresses, got "${a}"`);
    }
    return { trustedProxies: Object.freeze(list) };
  },
};
