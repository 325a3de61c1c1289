import { Type } from '@sinclair/typebox';
import { streamCreateBody, type StreamVariant } from '../streams/contract.ts';
import { ApiError } from '../errors.ts';
import type { ClipDeps } from './deps.ts';

/** `/clips/streams`: a presenter (`presenter_id`) streamed live with its own voice; `background.color` or `background.source_url` at creation. */
export function clipStreamVariant(deps: Pick<ClipDeps, 'presenters'>): StreamVariant {
  return {
    prefix: '/clips/streams',
    tag: 'Clip streams',
    body: streamCreateBody('CreateClipStream', {
      presenter_id: Type.String({ minLength: 1, maxLength: 200, description: 'a presenter of GET /clips/presenters, or a presenter alias (MIMIC_PRESENTER_ALIASES: the hosted service\'s public presenter ids, such as its demo\'s v2_public_alex@qcvo4gupoy)' }),
      background: Type.Optional(
        Type.Object(
          {
            color: Type.Optional(Type.String({ pattern: '^#[a-fA-F0-9]{6}$', description: 'the colour the presenter is shown on, #rrggbb' })),
            source_url: Type.Optional(Type.String({ pattern: '^(?:https|[a-z][a-z0-9+.-]*)://[^\\s]+$', maxLength: 2000, description: 'a jpg or png the presenter is shown on (https or a stored image), scaled to cover the frame; fetched when the stream opens' })),
          },
          { additionalProperties: true },
        ),
      ),
    }),
    async source({ user }, raw) {
      const body = raw as { presenter_id: string; background?: { color?: string; source_url?: string }; config?: { stitch?: boolean } };
      const { color, source_url: backgroundUrl } = body.background ?? {};
      if (color !== undefined && backgroundUrl !== undefined) throw new ApiError('BadRequestError', 'Invalid request body: background takes color or source_url, not both', [{ field: 'background', message: 'takes color or source_url, not both' }]);
      const presenter = await deps.presenters.find(user.id, body.presenter_id);
      if (!presenter) throw new ApiError('BadRequestError', 'Invalid request body: presenter_id names no presenter (GET /clips/presenters lists them)', [{ field: 'presenter_id', message: 'names no presenter' }]);
      return {
        sourceUrl: `presenter:${presenter.id}`,
        sourcePath: presenter.imagePath,
        stitch: body.config?.stitch === true,
        ...(color ? { background: { kind: 'color' as const, color } } : backgroundUrl ? { backgroundUrl } : {}),
        voice: { type: presenter.voice.type, voiceId: presenter.voice.voice_id },
      };
    },
  };
}
