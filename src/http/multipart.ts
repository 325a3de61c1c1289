import type { Context } from 'hono';
import { ApiError } from '../errors.ts';

/** The bytes of the file field `field` of a multipart/form-data upload, or a clear 400. */
export async function formFile(c: Context, field: string, what: string): Promise<Buffer> {
  if (!/^multipart\/form-data\b/i.test(c.req.header('content-type') ?? '')) {
    throw new ApiError('BadRequestError', `Send the ${what} as multipart/form-data in a field named "${field}"`);
  }
  const form = await c.req.formData().catch(() => {
    throw new ApiError('BadRequestError', 'The multipart body cannot be read');
  });
  const file = form.get(field);
  if (!(file instanceof Blob)) {
    throw new ApiError('BadRequestError', `The form has no file field named "${field}"`, [{ field, message: 'is required' }]);
  }
  return Buffer.from(await file.arrayBuffer());
}
