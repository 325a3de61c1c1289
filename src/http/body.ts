import type { Context } from 'hono';
import { ApiError } from '../errors.ts';
import { requestHeader } from './middleware.ts';

/**
 * Reads a required JSON object body. An absent or empty body, a body that is not JSON, or
 * JSON that is not an object is a 400 that says which. (Size is capped by the bodyLimit
 * middleware before this runs.)
 */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const body = await optionalJsonBody(c);
  if (body === undefined) throw new ApiError('BadRequestError', 'A request body is required (it may be an empty object {})');
  return body;
}

/**
 * A JSON object body that may be absent (a stream's DELETE, a worker's claim): undefined when
 * it is absent or empty, else read as `jsonBody` reads it. The body is read once.
 */
export async function optionalJsonBody(c: Context): Promise<Record<string, unknown> | undefined> {
  const type = requestHeader(c, 'content-type') ?? '';
  const text = await c.req.text();
  if (text.trim() === '') return undefined;
  if (type && !/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
    throw new ApiError('BadRequestError', 'The request body must be JSON (Content-Type: application/json)');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('BadRequestError', 'The request body is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError('BadRequestError', 'The request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
