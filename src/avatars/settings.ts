import { int, MiB } from '../config.ts';
import type { ConfigSection } from '../platform/module.ts';

export interface AvatarSettings {
  /** Largest footage fetched. */
  maxFootageBytes: number;
  /** Longest footage checked, seconds. */
  maxFootageSec: number;
  /** Credits an avatar costs (refunded when it fails or is rejected). */
  credits: number;
}

/** The avatars module's section of the configuration. */
export const avatarSettings: ConfigSection<AvatarSettings> = {
  variables: [
    { name: 'MIMIC_AVATAR_MAX_BYTES', default: String(2048 * MiB), description: 'largest avatar footage fetched' },
    { name: 'MIMIC_AVATAR_MAX_MINUTES', default: '30', description: 'longest avatar footage checked, minutes (5 to 240)' },
    { name: 'MIMIC_AVATAR_CREDITS', default: '20', description: 'credits a premium-plus avatar costs (0 to 100000), refunded when it fails or is rejected' },
  ],
  load: (env) => ({
    maxFootageBytes: int(env, 'MIMIC_AVATAR_MAX_BYTES', 2048 * MiB, MiB, 64 * 1024 * MiB),
    maxFootageSec: int(env, 'MIMIC_AVATAR_MAX_MINUTES', 30, 5, 240) * 60,
    credits: int(env, 'MIMIC_AVATAR_CREDITS', 20, 0, 100_000),
  }),
};
