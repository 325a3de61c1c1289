import { Type } from '@sinclair/typebox';
import { Int32, IsoTime, escapeRegex } from '../schemas/common.ts';
import { AUDIO_EXTENSIONS } from '../media/audio-formats.ts';

/**
 * The JSON Schemas every speaking capability shares (clips, talks, agents' presenters): what
 * is said (a text in a voice, or an audio), the logo and background it is shown with, and the
 * fields a speaking render shows on its record. Built for the configurable storage scheme.
 */
export function speechSchemas(storageScheme: string) {
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

  /** The request fields a speaking render takes beside its script: user_data, webhook, result_url. */
  const requestFields = {
    user_data: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: '1 to 1000 characters, not only whitespace' })),
    webhook: Type.Optional(Type.String({ pattern: '^(?:|https://[^\\s]+)$', description: 'https URL without whitespace; empty means no webhook' })),
    result_url: Type.Optional(Type.String({ pattern: `^(?:https|${s})://[^\\s]+$`, description: `https:// (an upload URL) or ${storageScheme}:// URL where the result is put` })),
  };

  return { Provider, TextScript, AudioScript, ClipLogo, Background, requestFields };
}

/** A voice by provider and id (the voice a presenter speaks with, or the one a render asked for). */
export const VoiceRef = Type.Object({ type: Type.String(), voice_id: Type.String() }, { $id: 'VoiceRef' });

/** What a speaking render shows on its record (the speech, the render, the delivery), whatever its kind. */
export const speakingRecordFields = {
  created_at: IsoTime,
  modified_at: IsoTime,
  started_at: Type.Optional(IsoTime),
  completed_at: Type.Optional(IsoTime),
  name: Type.Optional(Type.String()),
  script: Type.Unknown({ description: 'the script as requested' }),
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
};
