import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The file URLs of a task are capability URLs:
 * `<publicUrl>/compute/v1/tasks/<task>/files/<name>?lease=&expires=&signature=`, signature =
 * base64url HMAC-SHA256 over `<task>\n<lease>\n<name>\n<method>\n<expires>` under
 * deriveKey(master, 'compute-url'). The route also checks that the lease is still the task's
 * current one, so a URL dies with its lease even before it expires.
 */

export const FILE_NAMES = ['source', 'driver', 'logo', 'overlay', 'result'] as const;
export type FileName = (typeof FILE_NAMES)[number];
export type FileMethod = 'GET' | 'PUT';

export const isFileName = (s: string): s is FileName => (FILE_NAMES as readonly string[]).includes(s);

export interface FileUrlScope {
  taskId: string;
  lease: string;
  name: FileName;
  method: FileMethod;
}

const canonical = (s: FileUrlScope, expires: number): string => `${s.taskId}\n${s.lease}\n${s.name}\n${s.method}\n${expires}`;
const mac = (key: Buffer, s: FileUrlScope, expires: number): string => createHmac('sha256', key).update(canonical(s, expires)).digest('base64url');

export const filePath = (taskId: string, name: FileName): string => `/compute/v1/tasks/${encodeURIComponent(taskId)}/files/${name}`;

export function signFileUrl(input: FileUrlScope & { key: Buffer; publicUrl: string; ttlSeconds: number; now: number }): string {
  const expires = Math.floor(input.now / 1000) + input.ttlSeconds;
  const query = new URLSearchParams({ lease: input.lease, expires: String(expires), signature: mac(input.key, input, expires) });
  return `${input.publicUrl.replace(/\/+$/, '')}${filePath(input.taskId, input.name)}?${query}`;
}

export type FileUrlCheck = 'ok' | 'invalid' | 'expired';

/** Authenticity first (constant time over the canonical text, as media/signing.ts does), then expiry. */
export function verifyFileUrl(input: Omit<FileUrlScope, 'lease'> & {
  key: Buffer;
  lease: string | undefined;
  expires: string | undefined;
  signature: string | undefined;
  now: number;
}): FileUrlCheck {
  const { lease, expires, signature } = input;
  if (!lease || !expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid';
  const expected = Buffer.from(mac(input.key, { ...input, lease }, Number(expires)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) * 1000 <= input.now ? 'expired' : 'ok';
}
