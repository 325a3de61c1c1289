import type { Route } from '../platform/module.ts';
import { ApiError } from '../errors.ts';
import { uploadImage, type UploadDeps } from './upload.ts';

export function imageRoutes(deps: UploadDeps): Route[] {
  return [
    {
      method: 'post', path: '/images', summary: 'Upload a photo (multipart field "image"); answers {id, url} with a storage URL for source_url', tag: 'Media',
      // An upload may be as large as an image may be, plus the multipart framing.
      bodyLimit: deps.maxBytes + 64 * 1024,
      rawBody: { contentType: 'multipart/form-data', description: 'a form with one file field named "image"' },
      ok: { status: 201, description: '{id, url}' }, errors: ['BadRequestError', 'InvalidFileSizeError', 'AuthorizationError', 'PayloadTooLargeError'],
      handler: async (c) => {
        if (!/^multipart\/form-data\b/i.test(c.req.header('content-type') ?? '')) {
          throw new ApiError('BadRequestError', 'Send the image as multipart/form-data in a field named "image"');
        }
        const form = await c.req.formData().catch(() => {
          throw new ApiError('BadRequestError', 'The multipart body cannot be read');
        });
        const image = form.get('image');
        if (!(image instanceof Blob)) {
          throw new ApiError('BadRequestError', 'The form has no file field named "image"', [{ field: 'image', message: 'is required' }]);
        }
        const bytes = Buffer.from(await image.arrayBuffer());
        return c.json(await uploadImage(deps, c.var.user.id, { bytes }), 201);
      },
    },
  ];
}
