import { Type, type Static } from '@sinclair/typebox';
import { Double, Int32, IsoTime, escapeRegex } from './common.ts';
import { AUDIO_EXTENSIONS } from '../media/audio.ts';

/**
 * JSON Schemas of the clip and presenter endpoints: the hosted service's shapes (POST /clips,
 * GET /clips/{id}, GET /clips/presenters), the single source of validation, types and the
 * OpenAPI document. The storage scheme is configurable, so the URL patterns are built for it.
 */
export function clipSchemas(storageScheme: string) {
  const s = escapeRegex(storageScheme);
  const ext = AUDIO_EXTENSIONS.flatMap((e) => [e, e.toUpperCase()]).join('|');

  const Provider = Type.Object(
    {
      type: Type.String({ minLength: 1, maxLength: 40, description: 'voice provider: espeak, flite, microsoft, elevenlabs, openai (others fall back, see MIMIC_VOICE_FALLBACK)' }),
      voice_id: Type.String({ minLength: 1, maxLength: 200, description: 'a voice of GET /tts/voices' }),
      voice_config: Type.Optional(
        Type.Object(
          { rate: Type.Optional(Type.String({ pattern: '^(?:[0-9]+(?:\\.[0-9]+)?|x-slow|slow|medium|fast|x-fast)$', description: 'relative to 1 (0.5 half speed), or x-slow .. x-fast' })) },
          { additionalProperties: true, description: 'voice options; rate is honoured, other vendor options are passed over' },
        ),
      ),
      language: Type.Optional(Type.String({ maxLength: 100, description: 'e.g. "English (United States)": a hint for the fallback voice' })),
    },
    { additionalProperties: false, $id: 'ClipVoiceProvider' },
  );

  const TextScript = Type.Object(
    {
      type: Type.Literal('text'),
      input: Type.String({ minLength: 3, maxLength: 40000, description: 'the text to speak, 3 to 40,000 characters' }),
      ssml: Type.Optional(Type.Boolean({ description: 'input is SSML (<break>, <prosody rate> honoured by the embedded voices)' })),
      provider: Type.Optional(Provider),
      subtitles: Type.Optional(Type.Literal(false, { description: 'subtitles are not made here' })),
    },
    { additionalProperties: false, $id: 'ClipTextScript' },
  );

  const AudioScript = Type.Object(
    {
      type: Type.Literal('audio'),
      audio_url: Type.String({
        pattern: `^(?:https|${s})://[^\\s?#]+\\.(?:${ext})(?:[?#][^\\s]*)?$`,
        description: `https:// or ${storageScheme}:// URL (POST /audios answers one) of a ${AUDIO_EXTENSIONS.join(', ')} file; at most 15 MB and 5 minutes`,
      }),
      subtitles: Type.Optional(Type.Literal(false, { description: 'subtitles are not made here' })),
    },
    { additionalProperties: false, $id: 'ClipAudioScript' },
  );

  const ClipLogo = Type.Object(
    {
      url: Type.String({ pattern: `^(?:https|${s})://[^\\s]+$`, description: `https:// or ${storageScheme}:// URL of a jpg or png image (alpha respected)` }),
      position: Type.Array(Int32(), { minItems: 2, maxItems: 2, description: 'pixel position [x, y] of its top-left corner; negative values count back from the last pixel' }),
    },
    { additionalProperties: false, $id: 'ClipLogo' },
  );

  const ClipConfig = Type.Object(
    {
      logo: Type.Optional(Type.Union([ClipLogo, Type.Boolean()], { description: 'a custom logo, or true/false for the default logo (default true)' })),
      result_format: Type.Optional(Type.Union([Type.Literal('mp4'), Type.Literal('mov'), Type.Literal('webm')], { description: 'default mp4 (H.264, AAC); mov (H.264, or ProRes 4444 with a transparent background); webm (VP9 with alpha when transparent, Opus)' })),
      output_resolution: Type.Optional(Double({ minimum: 150, maximum: 1080, description: 'the larger side of the result in pixels (aspect kept); default: the presenter picture\'s frame (512)' })),
    },
    { additionalProperties: false, $id: 'ClipConfig' },
  );

  const Background = Type.Object(
    {
      color: Type.Optional(
        Type.Union(
          [
            Type.String({ pattern: '^#[a-fA-F0-9]{6}$', description: 'a 6-digit css colour, #rrggbb' }),
            Type.Literal(false, { description: 'transparent: needs config.result_format webm (or mov)' }),
          ],
          { description: 'the colour the presenter is shown on, or false for a transparent background (webm with alpha)' },
        ),
      ),
      source_url: Type.Optional(
        Type.String({ pattern: `^(?:https|${s})://[^\\s]+$`, description: `https:// or ${storageScheme}:// URL of a jpg or png image the presenter is shown on, scaled to cover the frame` }),
      ),
    },
    {
      additionalProperties: false,
      $id: 'ClipBackground',
      description: 'the presenter is cut out of its picture and shown on a colour, an image, or nothing (one of color or source_url); absent: the presenter\'s own picture',
    },
  );

  const CreateClip = Type.Object(
    {
      presenter_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'a presenter of GET /clips/presenters, or a presenter alias (MIMIC_PRESENTER_ALIASES: the hosted service\'s public presenter ids); default: the first built-in presenter' })),
      script: Type.Union([TextScript, AudioScript], { description: 'what the presenter says: a text spoken by a voice, or an audio' }),
      config: Type.Optional(ClipConfig),
      background: Type.Optional(Background),
      user_data: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: '1 to 1000 characters, not only whitespace' })),
      name: Type.Optional(Type.String({ maxLength: 200 })),
      webhook: Type.Optional(Type.String({ pattern: '^(?:|https://[^\\s]+)$', description: 'https URL without whitespace; empty means no webhook' })),
      result_url: Type.Optional(Type.String({ pattern: `^(?:https|${s})://[^\\s]+$`, description: `https:// (an upload URL) or ${storageScheme}:// URL where the result is put` })),
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

const VoiceRef = Type.Object({ type: Type.String(), voice_id: Type.String() }, { $id: 'VoiceRef' });

export const Clip = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('clip'),
    owner_id: Type.String(),
    created_by: Type.String(),
    status: ClipStatus,
    presenter_id: Type.String(),
    created_at: IsoTime,
    modified_at: IsoTime,
    started_at: Type.Optional(IsoTime),
    completed_at: Type.Optional(IsoTime),
    name: Type.Optional(Type.String()),
    script: Type.Unknown({ description: 'the script as requested' }),
    config: Type.Object({
      logo: Type.Unknown(),
      result_format: Type.Union([Type.Literal('mp4'), Type.Literal('mov'), Type.Literal('webm')]),
      output_resolution: Type.Optional(Type.Number()),
    }),
    pending_url: Type.Optional(Type.String({ description: 'while started: a signed HLS playlist (index.m3u8) of the video as it renders, growing segment by segment (local renders)' })),
    result_url: Type.Optional(Type.String({ description: 'signed URL of the video (or the given https destination); when done' })),
    audio_url: Type.Optional(Type.String({ description: 'signed URL of the speech as spoken (WAV); when done' })),
    duration: Type.Optional(Type.Number({ description: 'seconds; when done' })),
    credits: Type.Integer({ description: 'credits charged (refunded on error)' }),
    progress: Type.Optional(Type.Object({ frames_done: Type.Integer(), frames_total: Type.Integer() }, { description: 'while started' })),
    metadata: Type.Object({
      voice: Type.Optional(
        Type.Object({
          type: Type.String(),
          voice_id: Type.String(),
          fallback: Type.Optional(Type.Object({ requested: VoiceRef, reason: Type.String() })),
        }, { description: 'the voice that speaks (text scripts), with the fallback when it is not the one requested' }),
      ),
      num_frames: Type.Optional(Type.Integer()),
      resolution: Type.Optional(Type.Array(Type.String(), { minItems: 2, maxItems: 2 })),
      video_fps: Type.Optional(Type.Integer()),
      processing_fps: Type.Optional(Type.Number()),
      size_kib: Type.Optional(Type.Number()),
      speech_duration: Type.Optional(Type.Number({ description: 'seconds of speech' })),
    }),
    webhook: Type.Optional(Type.String()),
    user_data: Type.Optional(Type.String()),
    error: Type.Optional(Type.Object({ kind: Type.String(), description: Type.String() })),
  },
  { $id: 'Clip' },
);

export const ClipList = Type.Object(
  {
    clips: Type.Array(Clip),
    token: Type.Optional(Type.String({ description: 'pass as ?token= to get the next page; absent on the last page' })),
  },
  { $id: 'ClipList' },
);

export const Presenter = Type.Object(
  {
    presenter_id: Type.String(),
    name: Type.String(),
    gender: Type.String({ description: 'male, female or other' }),
    owner_id: Type.String({ description: '"mimic" for the built-in presenters' }),
    created_at: IsoTime,
    modified_at: IsoTime,
    preview_url: Type.String({ description: 'signed URL of a small still of the presenter' }),
    thumbnail_url: Type.String({ description: 'signed URL of a small still of the presenter' }),
    image_url: Type.String({ description: 'signed URL of the presenter picture' }),
    talking_preview_url: Type.Union([Type.String(), Type.Null()], { description: 'signed URL of a short clip mimic rendered of the presenter speaking; null until it has been rendered' }),
    voice: VoiceRef,
    is_streamable: Type.Boolean(),
  },
  { $id: 'Presenter' },
);
export type PresenterView = Static<typeof Presenter>;

export const PresenterList = Type.Object(
  {
    presenters: Type.Array(Presenter),
    token: Type.Optional(Type.String({ description: 'pass as ?token= to get the next page; absent on the last page' })),
  },
  { $id: 'PresenterList' },
);

export const RenamePresenter = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'the new display name' }) },
  { additionalProperties: false, $id: 'RenamePresenter' },
);

export const DeletedPresenter = Type.Object({ deleted: Type.String({ description: 'the presenter id' }) }, { $id: 'DeletedPresenter' });
