import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signatures: `v1,<base64 HMAC-SHA256("<id>.<timestamp>.<body>")>` keyed by
 * the base64-decoded part of the `whsec_...` secret; several signatures are space-separated
 * (during rotation both the new and the previous secret sign).
 */

const PREFIX = 'whsec_';

export function generateSigningSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

function secretBytes(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error('a webhook signing secret starts with whsec_');
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  if (key.length < 16) throw new Error('the webhook signing secret is too short');
  return key;
}

export function signPayload(secret: string, msgId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', secretBytes(secret)).update(`${msgId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The `webhook-signature` header value: one signature per active secret. */
export function signatureHeader(secrets: readonly string[], msgId: string, timestampSeconds: number, body: string): string {
  return secrets.map((s) => signPayload(s, msgId, timestampSeconds, body)).join(' ');
}
