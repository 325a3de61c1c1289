/** Helpers the claim contracts share (not a contract: it lives outside contracts/). */

/** A stored animation render, the request of a compute task. */
export const RENDER = { sourcePath: '/x.png', driver: { kind: 'bank', category: 'fun', name: 'driver-01' }, face: null, resultFormat: 'mp4', mute: true, stitch: false, maxAnimatedFaces: 1, logo: { kind: 'none' }, overlayPath: null } as const;

/**
 * Runs the claimers at once, each claiming until nothing is left, and returns every id that
 * any of them got (a claim answers one row, none, or a batch).
 */
export async function claimAllAtOnce(claimers: Array<() => Promise<{ id: string } | null | { id: string }[]>>): Promise<string[]> {
  const got: string[] = [];
  await Promise.all(
    claimers.map(async (claim) => {
      for (;;) {
        const res = await claim();
        const rows = Array.isArray(res) ? res : res ? [res] : [];
        if (rows.length === 0) return;
        got.push(...rows.map((r) => r.id));
      }
    }),
  );
  return got;
}
