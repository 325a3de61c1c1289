import { Type } from '@sinclair/typebox';
import { Double, Int32, IsoTime, named } from '../schemas/common.ts';

/** JSON Schemas of the videos module's answers (published in the OpenAPI document). */
export const Video = named(
  'Video',
  Type.Object(
    {
      id: Type.String({ description: 'vid_…' }),
      url: Type.String({ description: 'a storage URL for a consent\'s or an avatar\'s source_url' }),
      duration: Double({ description: 'seconds' }),
      width: Int32(),
      height: Int32(),
      has_audio: Type.Boolean(),
      size: Type.Number({ description: 'bytes' }),
    },
    { additionalProperties: false },
  ),
);

export const VideoUpload = named(
  'VideoUpload',
  Type.Object(
    {
      id: Type.String({ description: 'upl_…' }),
      status: Type.Union([Type.Literal('uploading'), Type.Literal('finishing'), Type.Literal('done'), Type.Literal('failed')], {
        description: 'uploading: bytes still to come; finishing: all bytes in, the video is being checked; done: `video` is set; failed: `error` says why',
      }),
      offset: Type.Number({ description: 'bytes received: where the next PATCH starts (also the Upload-Offset header)' }),
      length: Type.Number({ description: 'the Upload-Length given at creation' }),
      metadata: Type.Record(Type.String(), Type.String(), { description: 'the Upload-Metadata given at creation, decoded' }),
      created_at: IsoTime,
      expires_at: IsoTime,
      video: Type.Optional(Video),
      error: Type.Optional(Type.Object({ kind: Type.String(), description: Type.String() }, { additionalProperties: false })),
    },
    { additionalProperties: false },
  ),
);

export const VideoUploadList = named(
  'VideoUploadList',
  Type.Object(
    { uploads: Type.Array(VideoUpload, { description: 'your uploads not expired, newest first (at most MIMIC_VIDEO_UPLOADS_PER_USER of them unfinished)' }) },
    { additionalProperties: false },
  ),
);
