import { checkSignature, expiresAt, signText, type SignatureCheck } from '../../url-signature.ts';
import type { FileMethod } from '../tasks/task.ts';

/**
 * The file URLs of a task are capability URLs:
 * `<publicUrl>/compute/v1/tasks/<task>/files/<name>?lease=&expires=&signature=`, signature =
 * base64url HMAC-SHA256 over `<task>\n<lease>\n<name>\n<method>\n<expires>` under
 * deriveKey(master, 'compute-url'). The route also checks that the lease is still the task's
 * current one, so a URL dies with its lease even before it expires.
 */

/** A file of a task (an input or output its kind names: src/compute/tasks/), or `stream`: the live stream socket of a `stream.render` task, signed the same way. */
export type FileName = string;
export type { FileMethod };

export interface FileUrlScope {
  taskId: string;
  lease: string;
  name: FileName;
  method: FileMethod;
}

const canonical = (s: FileUrlScope, expires: number): string => `${s.taskId}\n${s.lease}\n${s.name}\n${s.method}\n${expires}`;

export const filePath = (taskId: string, name: FileName): string => `/compute/v1/tasks/${encodeURIComponent(taskId)}/files/${name}`;

export function signFileUrl(input: FileUrlScope & { key: Buffer; publicUrl: string; ttlSeconds: number; now: number }): string {
  const expires = expiresAt(input.now, input.ttlSeconds);
  const query = new URLSearchParams({ lease: input.lease, expires: String(expires), signature: signText(input.key, canonical(input, expires)) });
  return `${input.publicUrl.replace(/\/+$/, '')}${filePath(input.taskId, input.name)}?${query}`;
}

export type FileUrlCheck = SignatureCheck;

/** Authenticity first (constant time), then expiry: see url-signature.ts. A URL without a lease is invalid. */
export function verifyFileUrl(input: Omit<FileUrlScope, 'lease'> & {
  key: Buffer;
  lease: string | undefined;
  expires: string | undefined;
  signature: string | undefined;
  now: number;
}): FileUrlCheck {
  const { lease } = input;
  if (!lease) return 'invalid';
  return checkSignature(input.key, (expires) => canonical({ ...input, lease }, expires), input.expires, input.signature, input.now);
}
