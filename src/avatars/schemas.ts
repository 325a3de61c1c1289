import { Type, type Static } from '@sinclair/typebox';
import { IsoTime, pageOf } from '../schemas/common.ts';

/**
 * JSON Schemas of the premium-plus avatar endpoints (POST /clips/avatars and its records):
 * the hosted service's shapes plus what mimic measures. The storage scheme is configurable,
 * so the URL pattern is built for it.
 */
export function avatarSchemas(storageScheme: string) {
  const s = storageScheme.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const CreateAvatar = Type.Object(
    {
      source_url: Type.String({ pattern: `^(?:https|${s})://[^\\s]+$`, description: `https:// or ${storageScheme}:// URL of the footage: at least 5 minutes, one person facing the camera, the last 30 seconds or more silent and still` }),
      name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'the name spoken in the consent video; also the presenter\'s name' }),
      gender: Type.Union([Type.Literal('male'), Type.Literal('female')], { description: 'the presenter\'s gender (chooses its voice)' }),
      consent_id: Type.String({ minLength: 1, maxLength: 200, description: 'a verified consent (status done) of the same person, not used before' }),
      webhook: Type.Optional(Type.String({ pattern: '^(?:|https://[^\\s]+)$', description: 'https URL told when training ends (done, error or rejected); empty means none' })),
      config: Type.Optional(
        Type.Object(
          { is_greenscreen: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')], { description: 'the footage was filmed on a green screen (the hosted service sends the string "false")' })) },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false, $id: 'CreateAvatar' },
  );
  return { CreateAvatar };
}
export type AvatarSchemas = ReturnType<typeof avatarSchemas>;
export type CreateAvatarBody = Static<AvatarSchemas['CreateAvatar']>;

export const AvatarStatus = Type.Union(
  [Type.Literal('created'), Type.Literal('validating'), Type.Literal('started'), Type.Literal('done'), Type.Literal('error'), Type.Literal('rejected')],
  { $id: 'AvatarStatus', description: 'created → validating (footage checks) → started (training) → done; error (a check failed or training did), rejected (an operator refused it)' },
);

export const FootageCheck = Type.Object(
  {
    check: Type.String({ description: 'length, resolution, sound, silent_ending, idle_ending, one_person, facing_camera, same_person' }),
    passed: Type.Boolean(),
    measured: Type.Unknown(),
    limit: Type.Unknown(),
    note: Type.Optional(Type.String()),
  },
  { $id: 'AvatarFootageCheck' },
);

export const Avatar = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('avatar'),
    status: AvatarStatus,
    name: Type.String(),
    gender: Type.String(),
    created_at: IsoTime,
    modified_at: IsoTime,
    owner_id: Type.String(),
    created_by: Type.String(),
    consent_id: Type.String(),
    presenter_id: Type.String({ description: 'the presenter this avatar becomes (GET /clips/presenters/{id} once done)' }),
    driver_id: Type.String({ description: 'the presenter\'s idle loop, cut from the footage\'s silent ending' }),
    config: Type.Object({ is_greenscreen: Type.Boolean() }),
    credits: Type.Integer({ description: 'credits charged (refunded on error or rejection)' }),
    checks: Type.Array(FootageCheck, { description: 'each footage check as measured; they appear as they run' }),
    review: Type.Optional(Type.Object({ state: Type.String(), reason: Type.String(), decided_at: Type.Optional(IsoTime) }, { description: 'when the identity check fell in the review band: `mimic avatars review`' })),
    progress: Type.Optional(Type.Object({ done: Type.Integer(), total: Type.Integer() }, { description: 'while training' })),
    started_at: Type.Optional(IsoTime),
    completed_at: Type.Optional(IsoTime),
    voice: Type.Optional(Type.Object({ type: Type.String(), voice_id: Type.String(), pitch_hz: Type.Union([Type.Number(), Type.Null()]), reason: Type.String() }, { description: 'the voice chosen for the presenter, once trained' })),
    preview_url: Type.Optional(Type.String()),
    image_url: Type.Optional(Type.String()),
    idle_video_url: Type.Optional(Type.String()),
    webhook: Type.Optional(Type.String()),
    error: Type.Optional(Type.Object({ kind: Type.String(), description: Type.String() })),
  },
  { $id: 'Avatar' },
);
export type AvatarView = Static<typeof Avatar>;

export const AvatarList = pageOf('avatars', Avatar, 'AvatarList');
