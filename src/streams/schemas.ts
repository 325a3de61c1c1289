import { Type, type Static, type TProperties } from '@sinclair/typebox';
import { Double } from '../schemas/common.ts';

/**
 * JSON Schemas of the live stream endpoints (`/talks/streams`, `/clips/streams`,
 * `/agents/{agentId}/streams`): the hosted service's shapes. Every body accepts and ignores
 * unknown keys, because the existing clients send fields its OpenAPI does not list
 * (docs/streams.md); the known fields are still validated.
 */
const SessionId = Type.String({ minLength: 1, maxLength: 200, description: 'the session_id the create answer gave' });

/** The options every variant's create body shares. */
export const streamCreateOptions = {
  stream_warmup: Type.Optional(Type.Boolean({ description: 'stream a short idle clip first, then send stream/ready' })),
  fluent: Type.Optional(Type.Boolean({ description: 'idle video (blinks, breathing) flows between scripts; default: video only while speaking' })),
  session_timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 300, description: 'seconds without activity after which the stream closes (1 to 300, default 300)' })),
  compatibility_mode: Type.Optional(Type.Union([Type.Literal('on'), Type.Literal('off'), Type.Literal('auto')], { description: 'on: VP8 only; off: H.264 only; auto (default): both offered, the browser chooses' })),
  output_resolution: Type.Optional(Double({ minimum: 150, maximum: 1080, description: 'accepted for compatibility; the renderer decides the frame size' })),
  config: Type.Optional(Type.Object({ stitch: Type.Optional(Type.Boolean({ description: 'true: the whole picture is streamed; default: a square around the face' })) }, { additionalProperties: true })),
};

/** A variant's create body: its own fields beside the shared options; unknown keys accepted. */
export const streamCreateBody = (id: string, fields: TProperties) =>
  Type.Object({ ...fields, ...streamCreateOptions }, { additionalProperties: true, $id: id });

export const IceServerSchema = Type.Object(
  { urls: Type.Union([Type.String(), Type.Array(Type.String())]), username: Type.Optional(Type.String()), credential: Type.Optional(Type.String()) },
  { additionalProperties: false, $id: 'StreamIceServer' },
);

export const CreateStreamResponse = Type.Object(
  {
    id: Type.String({ description: 'the stream id (strm_…)' }),
    session_id: Type.String(),
    offer: Type.Object({ type: Type.Literal('offer'), sdp: Type.String() }, { description: 'the server\'s SDP offer (what the hosted demo client reads)' }),
    jsep: Type.Object({ type: Type.Literal('offer'), sdp: Type.String() }, { description: 'the same offer (what the hosted OpenAPI names it)' }),
    ice_servers: Type.Array(IceServerSchema),
    fluent: Type.Optional(Type.Boolean()),
    interrupt_enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, $id: 'CreateStreamResponse' },
);

export const StreamAnswer = Type.Object(
  {
    answer: Type.Object({ type: Type.Optional(Type.Literal('answer')), sdp: Type.String({ minLength: 1, maxLength: 100_000 }) }, { additionalProperties: true }),
    session_id: SessionId,
  },
  { additionalProperties: true, $id: 'StreamAnswer' },
);

export const StreamIce = Type.Object(
  {
    candidate: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], { description: 'a candidate line; absent, null or empty: the end of candidates' })),
    sdpMid: Type.Optional(Type.Union([Type.String({ maxLength: 100 }), Type.Null()])),
    sdpMLineIndex: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 100 }), Type.Null()])),
    session_id: SessionId,
  },
  { additionalProperties: true, $id: 'StreamIce' },
);

export const StreamScript = Type.Union(
  [
    Type.Object(
      {
        type: Type.Literal('text'),
        input: Type.String({ minLength: 1, maxLength: 40000, description: 'the text to speak' }),
        ssml: Type.Optional(Type.Union([Type.Boolean(), Type.Literal('true'), Type.Literal('false')])),
        provider: Type.Optional(Type.Object({ type: Type.String({ minLength: 1, maxLength: 100 }), voice_id: Type.String({ minLength: 1, maxLength: 200 }), voice_config: Type.Optional(Type.Object({ rate: Type.Optional(Type.String({ maxLength: 20 })) }, { additionalProperties: true })) }, { additionalProperties: true })),
      },
      { additionalProperties: true },
    ),
    Type.Object({ type: Type.Literal('audio'), audio_url: Type.String({ pattern: '^(?:https|[a-z][a-z0-9+.-]*)://[^\\s]+$', maxLength: 2000 }) }, { additionalProperties: true }),
  ],
  { description: 'a text spoken by a voice (the stream\'s voice unless provider names one), or an audio' },
);

export const StreamSpeak = Type.Object(
  {
    script: StreamScript,
    session_id: SessionId,
    config: Type.Optional(Type.Object({ stitch: Type.Optional(Type.Boolean()), fluent: Type.Optional(Type.Boolean()) }, { additionalProperties: true })),
    metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
    background: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'accepted: a clip stream keeps the background it was created with' })),
  },
  { additionalProperties: true, $id: 'StreamSpeak' },
);

export const StreamSession = Type.Object({ session_id: SessionId }, { additionalProperties: true, $id: 'StreamSession' });

export const StreamStatus = Type.Object({ status: Type.Literal('success') }, { additionalProperties: true, $id: 'StreamStatus' });

export const SpeakResponse = Type.Object(
  { status: Type.Literal('started'), duration: Type.Number({ description: 'seconds of speech (a text\'s estimate)' }), session_id: Type.String(), video_id: Type.String() },
  { additionalProperties: false, $id: 'StreamSpeakResponse' },
);

export type StreamSpeakBody = Static<typeof StreamSpeak>;
export type StreamScriptBody = Static<typeof StreamScript>;
export type StreamIceBody = Static<typeof StreamIce>;

/** A request forwarded from another API process (forward.ts): who asked, the agent of its path, and the body as the client sent it. */
export const StreamForward = Type.Object(
  {
    user_id: Type.String({ minLength: 1, maxLength: 200, description: 'the caller the forwarding process authenticated' }),
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    body: Type.Object({}, { additionalProperties: true, description: 'the client\'s body, unchanged' }),
  },
  { additionalProperties: false, $id: 'StreamForward' },
);
