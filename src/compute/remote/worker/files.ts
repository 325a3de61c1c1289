/** A task's file transfer: inputs downloaded into the task's folder, outputs PUT to their signed URLs, both on the server's origin only. */
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { extensionOfType } from '../protocol.ts';
import type { ServiceClient } from './service-client.ts';

/** Downloads `url` into `dir` as `name`, with the extension its content type names (look at the bytes when it names none). */
export async function downloadInput(service: ServiceClient, url: string, dir: string, name: string, maxBytes: number): Promise<string> {
  service.sameOrigin(url);
  const file = join(dir, name);
  const { contentType } = await service.client.download(url, file, { maxBytes, timeoutMs: 120_000, accept: () => true });
  const ext = extensionOfType(contentType);
  if (!ext) return file;
  await rename(file, file + ext);
  return file + ext;
}

export async function uploadOutput(service: ServiceClient, url: string, file: string, contentType: string): Promise<void> {
  service.sameOrigin(url);
  await service.client.upload(url, file, { contentType, timeoutMs: 300_000 });
}
