import type { Context } from 'hono';
import type { AppEnv } from '../http/env.ts';
import type { Route, RouteParam } from '../platform/module.ts';
import { ApiError } from '../errors.ts';
import { deleteVideo, uploadVideo, type VideoUploadDeps } from './upload.ts';
import type { ResumableUploads, UploadState } from './resumable/uploads.ts';
import { OFFSET_OCTET_STREAM, TUS_VERSION, byteCount, checkTusVersion, formatMetadata, httpDate, parseMetadata } from './resumable/protocol.ts';
import { Video, VideoUpload, VideoUploadList } from './schemas.ts';

export interface VideoRouteDeps extends VideoUploadDeps {
  uploads: ResumableUploads;
  /** Location of a new upload: `${publicUrl}/videos/uploads/{id}`. */
  publicUrl: string;
}

const uploadId: RouteParam = { name: 'id', in: 'path', description: 'the id POST /videos/uploads answered (upl_…)', required: true };
const tusHeader = (required: boolean): RouteParam => ({
  name: 'Tus-Resumable', in: 'header', required, description: `${TUS_VERSION} (tus); ${required ? 'required' : 'optional'} here, any other version is refused with 412`,
});

/** Tus-Resumable on every answer, errors included (set before the handler can throw). */
function tus(c: Context<AppEnv>, required: boolean): void {
  c.header('Tus-Resumable', TUS_VERSION);
  try {
    checkTusVersion(c.req.header('tus-resumable'), required);
  } catch (err) {
    // The 412 names the versions this server speaks, as tus asks.
    c.header('Tus-Version', TUS_VERSION);
    throw err;
  }
}

function offsetHeaders(c: Context<AppEnv>, state: UploadState): void {
  c.header('Upload-Offset', String(state.offset));
  c.header('Upload-Expires', httpDate(Date.parse(state.expires_at)));
}

/** A Content-Length the adapter checks against the body: the PATCH's declared size, when given. */
function declaredLength(c: Context<AppEnv>): number | undefined {
  const raw = c.req.header('content-length');
  return raw !== undefined && /^\d{1,16}$/.test(raw.trim()) ? Number(raw) : undefined;
}

export function videoRoutes(deps: VideoRouteDeps): Route[] {
  const { uploads } = deps;
  return [
    {
      method: 'post', path: '/videos', tag: 'Media',
      summary: `Upload a video (the request body: mp4, mov or webm, at most ${deps.maxBytes} bytes); answers {id, url, duration, width, height, has_audio, size} with a storage URL for a consent's or an avatar's source_url`,
      description: 'For a long video over an unreliable connection, POST /videos/uploads resumes where a dropped connection stopped (docs/videos.md).',
      // Streamed to disk under its own limit.
      bodyLimit: 'stream',
      rawBody: { contentType: 'application/octet-stream', description: 'the video file\'s bytes (video/mp4, video/quicktime, video/webm or application/octet-stream)' },
      ok: { status: 201, schema: Video, description: '{id, url, duration, width, height, has_audio, size}' },
      errors: ['BadRequestError', 'PayloadTooLargeError', 'AuthorizationError'],
      handler: async (c) => c.json(await uploadVideo(deps, c.get('user').id, c.req.raw.body, c.req.header('content-length')), 201),
    },
    {
      method: 'delete', path: '/videos/{id}', tag: 'Media', summary: 'Delete an uploaded video',
      params: [{ name: 'id', in: 'path', description: 'the id POST /videos answered', required: true }],
      ok: { status: 200, description: '{id, deleted: true}' }, errors: ['AuthorizationError', 'NotFoundError'],
      handler: async (c) => c.json(await deleteVideo(deps, c.get('user').id, c.req.param('id')!)),
    },
    {
      method: 'post', path: '/videos/uploads', tag: 'Media',
      summary: 'Start a resumable video upload (tus 1.0.0 creation): answers 201 with its Location and Upload-Expires; send the bytes with PATCH',
      description: `A tus 1.0.0 upload (core, creation, expiration, termination): tus clients such as tus-js-client work with it. \`Upload-Length\` is at most ${deps.maxBytes} bytes (MIMIC_VIDEO_UPLOAD_MAX_BYTES); a user may have MIMIC_VIDEO_UPLOADS_PER_USER unfinished uploads at once (429 beyond). An upload is removed when it expires (24 h by default), finished or not. docs/videos.md`,
      params: [
        tusHeader(true),
        { name: 'Upload-Length', in: 'header', required: true, description: `the file's size in bytes, 1 to ${deps.maxBytes}` },
        { name: 'Upload-Metadata', in: 'header', description: 'tus metadata: `key base64value` pairs, comma-separated (e.g. filename); shown back decoded' },
      ],
      ok: { status: 201, schema: VideoUpload, description: 'the new upload (offset 0); headers Location, Upload-Expires, Tus-Resumable' },
      errors: ['BadRequestError', 'PayloadTooLargeError', 'TooManyRequestsError', 'TusVersionError', 'AuthorizationError'],
      handler: async (c) => {
        tus(c, true);
        if (c.req.header('upload-defer-length') !== undefined) throw new ApiError('BadRequestError', 'Upload-Defer-Length is not supported: send Upload-Length', [{ field: 'Upload-Length', message: 'is required' }]);
        const state = await uploads.create(c.get('user').id, {
          length: byteCount(c.req.header('upload-length'), 'Upload-Length'),
          metadata: parseMetadata(c.req.header('upload-metadata')),
        });
        c.header('Location', `${deps.publicUrl}/videos/uploads/${state.id}`);
        c.header('Upload-Expires', httpDate(Date.parse(state.expires_at)));
        return c.json(state, 201);
      },
    },
    {
      method: 'get', path: '/videos/uploads', tag: 'Media',
      summary: 'Your resumable uploads not expired, newest first, with their offsets and metadata: a client that lost an upload\'s URL finds it again here and resumes it',
      params: [tusHeader(false)],
      ok: { status: 200, schema: VideoUploadList, description: '{uploads: [...]}; Cache-Control: no-store' },
      errors: ['TusVersionError', 'AuthorizationError'],
      handler: async (c) => {
        tus(c, false);
        c.header('Cache-Control', 'no-store');
        return c.json({ uploads: await uploads.list(c.get('user').id) });
      },
    },
    {
      method: 'get', path: '/videos/uploads/{id}', tag: 'Media',
      summary: 'A resumable upload\'s progress (HEAD answers the same headers without the body): Upload-Offset, Upload-Length; when done, the video',
      params: [uploadId, tusHeader(false)],
      ok: { status: 200, schema: VideoUpload, description: 'the upload; headers Upload-Offset, Upload-Length, Upload-Expires, Cache-Control: no-store' },
      errors: ['NotFoundError', 'TusVersionError', 'AuthorizationError'],
      handler: async (c) => {
        tus(c, false);
        c.header('Cache-Control', 'no-store');
        const state = await uploads.get(c.get('user').id, c.req.param('id')!);
        offsetHeaders(c, state);
        c.header('Upload-Length', String(state.length));
        if (Object.keys(state.metadata).length > 0) c.header('Upload-Metadata', formatMetadata(state.metadata));
        return c.json(state);
      },
    },
    {
      method: 'patch', path: '/videos/uploads/{id}', tag: 'Media',
      summary: 'Append bytes to a resumable upload at Upload-Offset (tus core); the last byte checks and stores the video as POST /videos does',
      description: 'Bytes are written as they arrive, so a connection that drops keeps what reached the server: HEAD the upload for its offset and PATCH from there. '
        + 'A wrong Upload-Offset is a 409 ConflictError (its details name the right one); bytes past Upload-Length are a 413, and nothing of that PATCH is kept. '
        + 'The PATCH that completes the upload answers when the video is checked and stored (a video that does not decode: 400, status failed); GET the upload for its `video`.',
      // Streamed to disk; the upload's own Upload-Length bounds it.
      bodyLimit: 'stream',
      params: [uploadId, tusHeader(true), { name: 'Upload-Offset', in: 'header', required: true, description: 'bytes the server has: the offset HEAD answered' }],
      rawBody: { contentType: OFFSET_OCTET_STREAM, description: 'the next bytes of the file, from Upload-Offset (any number of them, up to Upload-Length)' },
      ok: { status: 204, description: 'appended; headers Upload-Offset (the new offset), Upload-Expires' },
      errors: ['BadRequestError', 'NotFoundError', 'ConflictError', 'PayloadTooLargeError', 'UnsupportedMediaTypeError', 'TusVersionError', 'AuthorizationError'],
      handler: async (c) => {
        tus(c, true);
        const type = c.req.header('content-type')?.split(';')[0]?.trim().toLowerCase();
        if (type !== OFFSET_OCTET_STREAM) throw new ApiError('UnsupportedMediaTypeError', `Send the bytes with Content-Type: ${OFFSET_OCTET_STREAM}`);
        const offset = byteCount(c.req.header('upload-offset'), 'Upload-Offset');
        const state = await uploads.append(c.get('user').id, c.req.param('id')!, offset, c.req.raw.body, declaredLength(c));
        offsetHeaders(c, state);
        return c.body(null, 204);
      },
    },
    {
      method: 'delete', path: '/videos/uploads/{id}', tag: 'Media',
      summary: 'Cancel a resumable upload and delete its bytes (tus termination); a video it made stays (DELETE /videos/{id})',
      params: [uploadId, tusHeader(false)],
      ok: { status: 204, description: 'deleted' },
      errors: ['NotFoundError', 'ConflictError', 'TusVersionError', 'AuthorizationError'],
      handler: async (c) => {
        tus(c, false);
        await uploads.remove(c.get('user').id, c.req.param('id')!);
        return c.body(null, 204);
      },
    },
  ];
}
