import type { MediaStore } from './store.ts';

/**
 * Copies every object of `from` (of one owner when given) into `to`, streamed one at a time,
 * with its content type; objects `to` already holds with the same size are left alone, so an
 * interrupted copy runs again from where it stopped. Answers what it did.
 */
export async function copyAll(from: MediaStore, to: MediaStore, opts: { owner?: string; onCopied?: (owner: string, key: string) => void } = {}): Promise<{ copied: number; skipped: number; bytes: number }> {
  let copied = 0, skipped = 0, bytes = 0;
  for await (const o of from.list(opts.owner)) {
    const there = await to.stat(o.owner, o.key);
    if (there && there.size === o.size) {
      skipped++;
      continue;
    }
    const meta = await from.stat(o.owner, o.key);
    const body = meta && (await from.read(o.owner, o.key));
    if (!meta || !body) continue; // removed since it was listed
    await to.put(o.owner, o.key, body, meta.contentType);
    copied++;
    bytes += meta.size;
    opts.onCopied?.(o.owner, o.key);
  }
  return { copied, skipped, bytes };
}
