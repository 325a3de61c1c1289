import { streamCreateBody } from '../streams/contract.ts';
import { notFound } from '../errors.ts';
import type { StreamVariant } from '../streams/contract.ts';
import type { SpeakingVoice } from '../speaking/records.ts';
import type { CreateAgentBody } from './schemas.ts';
import type { AgentDeps } from './service.ts';

/** `/agents/{agentId}/streams`: the agent's presenter streamed live with the agent's voice; another user's agent is not found. */
export function agentStreamVariant(deps: Pick<AgentDeps, 'store' | 'presenters'>): StreamVariant {
  return {
    prefix: '/agents/{agentId}/streams',
    tag: 'Agent streams',
    clientKey: { agentParam: 'agentId' },
    body: streamCreateBody('CreateAgentStream', {}),
    async source({ user, params }, raw) {
      const agentId = params.agentId!;
      const row = await deps.store.get(user.id, agentId);
      if (!row) throw notFound('agent');
      const { presenter } = JSON.parse(row.body) as Pick<CreateAgentBody, 'presenter'>;
      const voice = row.voice ? (JSON.parse(row.voice) as SpeakingVoice) : undefined;
      const stitch = (raw as { config?: { stitch?: boolean } }).config?.stitch ?? (presenter.type === 'talk' && presenter.stitch === true);
      const common = { stitch, agentId, ...(voice ? { voice: { type: voice.type, voiceId: voice.voiceId } } : {}) };
      if (presenter.type === 'talk') return { sourceUrl: presenter.source_url, ...common };
      const entry = await deps.presenters.find(user.id, presenter.presenter_id);
      if (!entry) throw notFound('agent presenter');
      const { color, source_url: backgroundUrl } = presenter.background ?? {};
      const background = typeof color === 'string' ? { background: { kind: 'color' as const, color } } : backgroundUrl !== undefined ? { backgroundUrl } : {};
      return { sourceUrl: `presenter:${entry.id}`, sourcePath: entry.imagePath, ...common, ...background };
    },
  };
}
