import { int, MiB } from '../config.ts';
import type { ConfigSection } from '../platform/module.ts';

export interface ToolLimits {
  /** Default upstream deadline of a tool call (a tool's config.timeout_ms overrides it). */
  timeoutMs: number;
  /** Largest upstream response a tool call reads; larger is a 502. */
  maxResponseBytes: number;
}

/** The tools module's section of the configuration. */
export const toolSettings: ConfigSection<ToolLimits> = {
  variables: [
    { name: 'MIMIC_TOOL_TIMEOUT_MS', default: '10000', description: 'default upstream deadline of a tool call (100 to 60000)' },
    { name: 'MIMIC_TOOL_MAX_RESPONSE_BYTES', default: String(MiB), description: 'largest upstream response a tool call reads' },
  ],
  load: (env) => ({
    timeoutMs: int(env, 'MIMIC_TOOL_TIMEOUT_MS', 10_000, 100, 60_000),
    maxResponseBytes: int(env, 'MIMIC_TOOL_MAX_RESPONSE_BYTES', 1 * MiB, 1024, 64 * MiB),
  }),
};
