import { Hono } from 'hono';
import type { AppEnv } from '../env.ts';
import { ApiError } from '../../errors.ts';
import { uploadImage } from '../../images/upload.ts';
import type { MediaAccess } from '../../media/index.ts';
import type { IdFactory } from '../../clock.ts';

export function imageRoutes(deps: { media: MediaAccess; newId: IdFactory; storageScheme: string; maxBytes: number }) {
  return new Hono<AppEnv>().post('/images', async (c) => {
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
  });
}
