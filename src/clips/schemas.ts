import { Type, type Static } from '@sinclair/typebox';
import { Double, IsoTime, pageOf } from '../schemas/common.ts';
import { speechSchemas, speakingRecordFields } from '../speaking/schemas.ts';

/**
 * JSON Schemas of the clip endpoints: the hosted service's shapes (POST /clips,
 * GET /clips/{id}, GET /clips), the single source of validation, types and the
 * OpenAPI document. The storage scheme is configurable, so the URL patterns are built for it.
 */
export function clipSchemas(storageScheme: string) {
  const { Provider, TextScript, AudioScript, ClipLogo, Background, requestFields } = speechSchemas(storageScheme);

  const ClipConfig = Type.Object(
    {
      logo: Type.Optional(Type.Union([ClipLogo, Type.Boolean()], { description: 'a custom logo, or true/false for the default logo (default true)' })),
      result_format: Type.Optional(Type.Union([Type.Literal('mp4'), Type.Literal('mov'), Type.Literal('webm')], { description: 'default mp4 (H.264, AAC); mov (H.264, or ProRes 4444 with a transparent background); webm (VP9 with alpha when transparent, Opus)' })),
      output_resolution: Type.Optional(Double({ minimum: 150, maximum: 1080, description: 'the larger side of the result in pixels (aspect kept); default: the presenter picture\'s frame (512)' })),
    },
    { additionalProperties: false, $id: 'ClipConfig' },
  );

  const CreateClip = Type.Object(
    {
      presenter_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'a presenter of GET /clips/presenters, or a presenter alias (MIMIC_PRESENTER_ALIASES: the hosted service\'s public presenter ids); default: the first built-in presenter' })),
      script: Type.Union([TextScript, AudioScript], { description: 'what the presenter says: a text spoken by a voice, or an audio' }),
      config: Type.Optional(ClipConfig),
      background: Type.Optional(Background),
      user_data: requestFields.user_data,
      name: Type.Optional(Type.String({ maxLength: 200 })),
      webhook: requestFields.webhook,
      result_url: requestFields.result_url,
      persist: Type.Optional(Type.Boolean({ description: 'accepted for compatibility: results are kept until the clip is deleted' })),
    },
    { additionalProperties: false, $id: 'CreateClip' },
  );

  return { CreateClip, ClipConfig, ClipLogo, TextScript, AudioScript, Provider, Background };
}

export type ClipSchemas = ReturnType<typeof clipSchemas>;
export type CreateClipBody = Static<ClipSchemas['CreateClip']>;

export const ClipStatus = Type.Union([Type.Literal('created'), Type.Literal('started'), Type.Literal('done'), Type.Literal('error')], { $id: 'ClipStatus' });

export const CreateClipResponse = Type.Object(
  { id: Type.String(), object: Type.Literal('clip'), created_at: IsoTime, status: ClipStatus },
  { additionalProperties: false, $id: 'CreateClipResponse' },
);

const { created_at, modified_at, started_at, completed_at, name, script, pending_url, result_url, audio_url, duration, credits, progress, metadata, webhook, user_data, error } = speakingRecordFields;

export const Clip = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('clip'),
    owner_id: Type.String(),
    created_by: Type.String(),
    status: ClipStatus,
    presenter_id: Type.String(),
    created_at, modified_at, started_at, completed_at, name, script,
    config: Type.Object({
      logo: Type.Unknown(),
      result_format: Type.Union([Type.Literal('mp4'), Type.Literal('mov'), Type.Literal('webm')]),
      output_resolution: Type.Optional(Type.Number()),
    }),
    pending_url, result_url, audio_url, duration, credits, progress, metadata, webhook, user_data, error,
  },
  { $id: 'Clip' },
);

export const ClipList = pageOf('clips', Clip, 'ClipList');
