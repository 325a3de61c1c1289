import type { Route } from '../platform/module.ts';
import { formFile } from '../http/multipart.ts';
import { uploadImage, type UploadDeps } from './upload.ts';

export function imageRoutes(deps: UploadDeps): Route[] {
  return [
    {
      method: 'post', path: '/images', summary: 'Upload a photo (multipart field "image"); answers {id, url} with a storage URL for source_url', tag: 'Media',
      // An upload may be as large as an image may be, plus the multipart framing.
      bodyLimit: deps.maxBytes + 64 * 1024,
      rawBody: { contentType: 'multipart/form-data', description: 'a form with one file field named "image"' },
      ok: { status: 201, description: '{id, url}' }, errors: ['BadRequestError', 'InvalidFileSizeError', 'AuthorizationError', 'PayloadTooLargeError'],
      handler: async (c) => c.json(await uploadImage(deps, c.get('user').id, { bytes: await formFile(c, 'image', 'image') }), 201),
    },
  ];
}
