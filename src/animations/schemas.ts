import { Type, type Static } from '@sinclair/typebox';
import { Double, FaceSquare, Int32, IsoTime, Rect, escapeRegex, photoUrl, pageOf } from '../schemas/common.ts';

/**
 * JSON Schemas of the animation endpoints. The storage scheme is configurable, so the URL
 * patterns are built for it; everything else is fixed by the interface.
 */
export function animationSchemas(storageScheme: string) {
  const s = escapeRegex(storageScheme);
  const ext = (list: string[]) => list.flatMap((e) => [e, e.toUpperCase()]).join('|');
  const query = '(?:[?#][^\\s]*)?';
  const imageUrl = photoUrl(storageScheme);
  const remoteUrl = Type.String({
    pattern: `^(?:https|${s})://[^\\s]+$`,
    description: `https:// or ${storageScheme}:// URL`,
  });
  const driverUrl = Type.String({
    pattern: `^(?:https|${s}|bank)://[^\\s]+$`,
    description: `https://, ${storageScheme}:// or bank:// followed by at least one character`,
  });
  const videoUrl = Type.String({
    pattern: `^(?:https|${s})://[^\\s?#]+\\.(?:${ext(['mp4', 'mov', 'mpeg'])})${query}$`,
    description: `https:// or ${storageScheme}:// URL whose path ends in .mp4, .mov or .mpeg (lower or upper case)`,
  });

  const Logo = Type.Object(
    {
      url: Type.String({
        pattern: `^(?:https|${s})://[^\\s]+$`,
        description: `https:// or ${storageScheme}:// URL of a jpg or png image (alpha respected)`,
      }),
      position: Type.Array(Int32(), {
        minItems: 2,
        maxItems: 2,
        description: 'pixel position [x, y] from the top-left corner; negative values count back from the last pixel',
      }),
    },
    { additionalProperties: false, $id: 'Logo' },
  );

  const AnimateConfig = Type.Object(
    {
      logo: Type.Optional(Type.Union([Logo, Type.Boolean()], { description: 'custom logo, or true/false for the default logo' })),
      overlay: Type.Optional(videoUrl),
      mute: Type.Optional(Type.Boolean({ description: 'mutes the driver sound; default true' })),
      stitch: Type.Optional(Type.Boolean({ description: 'stitch the animation back into the original image (permission stitch)' })),
      max_animated_faces: Type.Optional(Double({ minimum: 1, maximum: 5, description: 'faces to animate when stitch is true; default 5' })),
      result_format: Type.Optional(Type.Union([Type.Literal('mp4'), Type.Literal('mov')])),
    },
    { additionalProperties: false, $id: 'AnimateConfig' },
  );

  const CreateAnimation = Type.Object(
    {
      source_url: Type.Optional(imageUrl),
      driver_url: Type.Optional(driverUrl),
      result_url: Type.Optional(remoteUrl),
      face: Type.Optional(FaceSquare),
      webhook: Type.Optional(
        Type.String({ pattern: '^(?:|https://[^\\s]+)$', description: 'https URL without whitespace; empty means no webhook' }),
      ),
      config: Type.Optional(AnimateConfig),
      user_data: Type.Optional(
        Type.String({ minLength: 1, maxLength: 1000, pattern: '\\S', description: '1 to 1000 characters, not only whitespace' }),
      ),
    },
    { additionalProperties: false, $id: 'CreateAnimation' },
  );

  return { CreateAnimation, AnimateConfig, FaceSquare, Logo, Rect };
}

export type AnimationSchemas = ReturnType<typeof animationSchemas>;
export type CreateAnimationBody = Static<AnimationSchemas['CreateAnimation']>;

export const AnimationStatus = Type.Union(
  [Type.Literal('created'), Type.Literal('started'), Type.Literal('done'), Type.Literal('error')],
  { $id: 'AnimationStatus' },
);

export const CreateAnimationResponse = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('animation'),
    created_by: Type.String(),
    created_at: IsoTime,
    status: AnimationStatus,
  },
  { additionalProperties: false, $id: 'CreateAnimationResponse' },
);

const DetectedFace = Type.Object(
  {
    face_id: Type.Integer(),
    detection: Type.Array(Type.Number(), { minItems: 4, maxItems: 4, description: '[left, top, right, bottom]' }),
    top_left: Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }),
    size: Type.Integer(),
    detect_confidence: Type.Number(),
    mask_confidence: Type.Number(),
    overlap: Type.String({ description: 'no, partial, yes or unknown' }),
  },
  { $id: 'DetectedFace' },
);

export const Animation = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('animation'),
    status: AnimationStatus,
    created_at: IsoTime,
    modified_at: IsoTime,
    started_at: Type.Optional(IsoTime),
    created_by: Type.String(),
    user_id: Type.String(),
    source_url: Type.String({ description: 'time-limited signed URL of the stored copy of the source image' }),
    driver_url: Type.String({ description: 'the driver as requested (the bank category used when none was given)' }),
    result_url: Type.Optional(Type.String({ description: 'signed URL of the result (or the given https destination); when done' })),
    face_ids: Type.Optional(Type.Array(Type.Integer())),
    task: Type.Boolean({ description: 'always true: the animation is processed as a queued task' }),
    config: Type.Object({
      logo: Type.Optional(Type.Unknown()),
      mute: Type.Boolean(),
      stitch: Type.Boolean(),
      max_animated_faces: Type.Number(),
      motion_factor: Type.Number(),
      result_format: Type.Union([Type.Literal('.mp4'), Type.Literal('.mov')]),
      overlay: Type.Optional(Type.String()),
    }),
    face: Type.Optional(Type.Unknown()),
    metadata: Type.Object({
      driver_url: Type.String(),
      faces: Type.Optional(Type.Array(DetectedFace)),
      num_frames: Type.Optional(Type.Integer()),
      processing_fps: Type.Optional(Type.Number()),
      resolution: Type.Optional(Type.Array(Type.String(), { minItems: 2, maxItems: 2 })),
      size_kib: Type.Optional(Type.Number()),
      source_pose: Type.Optional(Type.Array(Type.Number(), { minItems: 3, maxItems: 3 })),
      video_fps: Type.Optional(Type.Integer()),
    }),
    progress: Type.Optional(
      Type.Object({ frames_done: Type.Integer(), frames_total: Type.Integer() }, { description: 'while started' }),
    ),
    webhook: Type.Optional(Type.String()),
    user_data: Type.Optional(Type.String()),
    error: Type.Optional(Type.Object({ kind: Type.String(), description: Type.String() })),
  },
  { $id: 'Animation' },
);

export const AnimationList = pageOf('animations', Animation, 'AnimationList');
