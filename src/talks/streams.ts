import { Type } from '@sinclair/typebox';
import { FaceSquare, photoUrl } from '../schemas/common.ts';
import { streamCreateBody } from '../streams/contract.ts';
import { storedObject } from '../speaking/inputs.ts';
import { requirePermission } from '../platform/caller.ts';
import { ApiError } from '../errors.ts';
import type { StreamVariant, StreamVoice } from '../streams/contract.ts';
import type { TalkDeps } from './kind.ts';
import { defaultVoice } from '../voices/contract.ts';

/** The voice a talk stream speaks with when a script names none (a talk's default); none when no voice is configured (audio scripts still play). */
export async function talkStreamVoice(deps: Pick<TalkDeps, 'voices'>): Promise<StreamVoice | undefined> {
  try {
    const v = await defaultVoice(deps.voices);
    return { type: v.type, voiceId: v.voice_id };
  } catch (err) {
    if (err instanceof ApiError && err.kind === 'ServiceUnavailableError') return undefined;
    throw err;
  }
}

/** `/talks/streams`: a photo (`source_url`, optional `face`, `config.stitch`) streamed live. */
export function talkStreamVariant(deps: Pick<TalkDeps, 'config' | 'media' | 'voices'>): StreamVariant {
  const photo = photoUrl(deps.config.storageScheme);
  return {
    prefix: '/talks/streams',
    tag: 'Talk streams',
    body: streamCreateBody('CreateTalkStream', {
      source_url: Type.String({ pattern: photo.pattern, description: `the photo that speaks: ${photo.description}` }),
      face: Type.Optional(FaceSquare),
    }),
    async source({ user }, raw) {
      const body = raw as { source_url: string; face?: { size: number; top_left: [number, number] }; config?: { stitch?: boolean } };
      const stitch = body.config?.stitch === true;
      if (stitch) requirePermission(user, 'stitch', 'config.stitch');
      await storedObject(deps, user.id, 'source_url', body.source_url);
      const voice = await talkStreamVoice(deps);
      return {
        sourceUrl: body.source_url,
        stitch,
        ...(body.face ? { face: { size: body.face.size, top_left: body.face.top_left } } : {}),
        ...(voice ? { voice } : {}),
      };
    },
  };
}
