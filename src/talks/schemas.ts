import { Type, type Static } from '@sinclair/typebox';
import { Double, IsoTime, photoUrl, pageOf } from '../schemas/common.ts';
import { speakingRecordFields, speechSchemas } from '../speaking/schemas.ts';

/**
 * JSON Schemas of the talk endpoints: the hosted service's shapes (POST /talks, GET /talks/{id},
 * GET /talks). A talk is a clip on a photo: the script, its provider and the logo are the
 * speaking kit's schemas (as clips'), the photo's URL is an animation's source_url. docs/talks.md says which
 * hosted fields are honoured, accepted and ignored, or refused.
 */
export function talkSchemas(storageScheme: string) {
  const clip = speechSchemas(storageScheme);
  const photo = photoUrl(storageScheme);

  const TalkConfig = Type.Object(
    {
      logo: Type.Optional(Type.Union([clip.ClipLogo, Type.Boolean()], { description: 'a custom logo, or true/false for the default logo (default true)' })),
      result_format: Type.Optional(Type.Union([Type.Literal('mp4'), Type.Literal('mov')], { description: 'default: what result_url\'s extension names (.mov, .qt: mov), else mp4' })),
      output_resolution: Type.Optional(Double({ minimum: 150, maximum: 1080, description: 'the larger side of the result in pixels (aspect kept); a mimic extension, as on clips' })),
      stitch: Type.Optional(Type.Boolean({ description: 'true: the speaking face is put back into the whole photo (needs the stitch permission); default: a frame around the face' })),
      fluent: Type.Optional(Type.Boolean({ description: 'accepted for compatibility and ignored: a talk has no driver video to loop' })),
      pad_audio: Type.Optional(Double({ minimum: 0, maximum: 60, description: 'seconds of silence after the speech (0 to 60, default 0); the video lasts as long, and the padding is charged as speech' })),
      driver_expressions: Type.Optional(Type.Unknown({ description: 'not supported yet: any value is refused with 400' })),
    },
    { additionalProperties: false, $id: 'TalkConfig' },
  );

  const CreateTalk = Type.Object(
    {
      source_url: Type.String({ pattern: photo.pattern, description: `the photo that speaks: ${photo.description}; a face must be found on it` }),
      script: Type.Union([clip.TextScript, clip.AudioScript], { description: 'what the photo says: a text spoken by a voice (default: an embedded English voice), or an audio' }),
      config: Type.Optional(TalkConfig),
      user_data: clip.requestFields.user_data,
      name: Type.Optional(Type.String({ maxLength: 200 })),
      webhook: clip.requestFields.webhook,
      result_url: clip.requestFields.result_url,
      persist: Type.Optional(Type.Boolean({ description: 'accepted for compatibility: results are kept until the talk is deleted' })),
    },
    { additionalProperties: false, $id: 'CreateTalk' },
  );

  return { CreateTalk, TalkConfig };
}

export type TalkSchemas = ReturnType<typeof talkSchemas>;
export type CreateTalkBody = Static<TalkSchemas['CreateTalk']>;

export const TalkStatus = Type.Union([Type.Literal('created'), Type.Literal('started'), Type.Literal('done'), Type.Literal('error')], { $id: 'TalkStatus' });

export const CreateTalkResponse = Type.Object(
  { id: Type.String(), object: Type.Literal('talk'), created_by: Type.String(), created_at: IsoTime, status: TalkStatus },
  { additionalProperties: false, $id: 'CreateTalkResponse' },
);

/** What a talk shows as a clip does (the speech, the render, the delivery): the speaking kit's record fields. */
const { created_at, modified_at, started_at, completed_at, name, script, pending_url, result_url, audio_url, duration, credits, progress, metadata, webhook, user_data, error } = speakingRecordFields;

export const Talk = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('talk'),
    user_id: Type.String(),
    created_by: Type.String(),
    status: TalkStatus,
    source_url: Type.String({ description: 'the photo, as requested' }),
    created_at, modified_at, started_at, completed_at, name, script,
    config: Type.Object({
      logo: Type.Unknown(),
      result_format: Type.Union([Type.Literal('mp4'), Type.Literal('mov')]),
      stitch: Type.Boolean(),
      fluent: Type.Optional(Type.Boolean()),
      pad_audio: Type.Optional(Type.Number()),
      output_resolution: Type.Optional(Type.Number()),
    }),
    pending_url, result_url, audio_url, duration, credits, progress, metadata, webhook, user_data, error,
  },
  { $id: 'Talk' },
);

export const TalkList = pageOf('talks', Talk, 'TalkList');
