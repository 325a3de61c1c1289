import { int } from '../config.ts';
import type { ConfigSection } from '../platform/module.ts';
import { DEFAULT_CHAT_LIMITS, type ChatLimits } from './chat/service.ts';

/** The agents module's section of the configuration: the limits of one chat answer (docs/agents.md, "Limits"). */
export const agentSettings: ConfigSection<ChatLimits> = {
  variables: [
    { name: 'MIMIC_AGENT_CHAT_TIMEOUT_MS', default: String(DEFAULT_CHAT_LIMITS.answerTimeoutMs), description: 'longest time of one chat answer, every model round and tool call (1000 to 600000)' },
    { name: 'MIMIC_AGENT_CHAT_MAX_ROUNDS', default: String(DEFAULT_CHAT_LIMITS.maxRounds), description: 'model rounds in one chat answer (1 to 20)' },
  ],
  load: (env) => ({
    ...DEFAULT_CHAT_LIMITS,
    answerTimeoutMs: int(env, 'MIMIC_AGENT_CHAT_TIMEOUT_MS', DEFAULT_CHAT_LIMITS.answerTimeoutMs, 1000, 600_000),
    maxRounds: int(env, 'MIMIC_AGENT_CHAT_MAX_ROUNDS', DEFAULT_CHAT_LIMITS.maxRounds, 1, 20),
  }),
};
