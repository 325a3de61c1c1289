import { Type } from '@sinclair/typebox';
import { streamCreateBody } from '../schemas/streams.ts';
import { ApiError } from '../errors.ts';
import type { StreamVariant } from '../streams/interface.ts';
import type { ClipDeps } from './deps.ts';

/** `/clips/streams`: a presenter (`presenter_id`) streamed live with its own voice; `background.color` at creation. */
export function clipStreamVariant(deps: Pick<ClipDeps, 'presenters'>): StreamVariant {
  return {
    prefix: '/clips/streams',
    tag: 'Clip streams',
    body: streamCreateBody('CreateClipStream', {
      presenter_id: Type.String({ minLength: 1, maxLength: 200, description: 'a presenter of GET /clips/presenters' }),
      background: Type.Optional(Type.Object({ color: Type.Optional(Type.String({ pattern: '^#[a-fA-F0-9]{6}$', description: 'the colour the presenter is shown on, #rrggbb' })) }, { additionalProperties: true })),
    }),
    async source({ user }, raw) {
      const body = raw as { presenter_id: string; background?: { color?: string }; config?: { stitch?: boolean } };
      const presenter = await deps.presenters.find(user.id, body.presenter_id);
      if (!presenter) throw new ApiError('BadRequestError', 'Invalid request body: presenter_id names no presenter (GET /clips/presenters lists them)', [{ field: 'presenter_id', message: 'names no presenter' }]);
      return {
        sourceUrl: `presenter:${presenter.id}`,
        sourcePath: presenter.imagePath,
        stitch: body.config?.stitch === true,
        ...(body.background?.color ? { background: { kind: 'color' as const, color: body.background.color } } : {}),
        voice: { type: presenter.voice.type, voiceId: presenter.voice.voice_id },
      };
    },
  };
}
