import { ApiError } from '../errors.ts';

/**
 * A resource's `webhook` must be a URL without credentials in it (they would be stored, shown
 * on the record and sent in clear). Every kind's create checks it; the lifecycle checks it
 * again before anything is stored.
 */
export function checkWebhookUrl(webhook: string | undefined): void {
  if (!webhook) return;
  const bad = (message: string) => new ApiError('BadRequestError', `Invalid request body: webhook ${message}`, [{ field: 'webhook', message }]);
  let url: URL;
  try {
    url = new URL(webhook);
  } catch {
    throw bad('is not a valid URL');
  }
  if (url.username || url.password) throw bad('must not carry credentials in the URL');
}
