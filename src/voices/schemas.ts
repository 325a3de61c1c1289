import { Type, type Static } from '@sinclair/typebox';
import { PROVIDER_TYPES } from './interface.ts';

/** One voice of `GET /tts/voices` (the hosted service's IVoice, the fields mimic knows). */
export const Voice = Type.Object(
  {
    id: Type.String({ description: 'unique per provider: what script.provider.voice_id names' }),
    name: Type.String(),
    gender: Type.Union([Type.Literal('male'), Type.Literal('female')]),
    provider: Type.Union(PROVIDER_TYPES.map((p) => Type.Literal(p))),
    access: Type.Literal('public'),
    languages: Type.Array(Type.Object({ language: Type.String(), locale: Type.String() }, { additionalProperties: false })),
    styles: Type.Array(Type.String()),
    description: Type.Optional(Type.String()),
  },
  { $id: 'Voice', additionalProperties: false },
);
export type VoiceView = Static<typeof Voice>;

export const VoiceList = Type.Array(Voice, { $id: 'VoiceList', description: 'a bare array, as the hosted service answers' });
