import { ApiError } from '../errors.ts';
import type { StreamSettings } from './settings.ts';

/**
 * The stream limits of one API process: `perUser` open streams per user, `total` for all
 * users. A create claims its place before its first await (the picture fetch, the renderer,
 * ICE gathering), so two creates at once cannot both take the last place; it gives the
 * place back when it fails or once the stream is open (then the stream itself counts).
 */
export function createStreamLimits(settings: Pick<StreamSettings, 'perUser' | 'total'>, count: { open(): number; openOf(userId: string): number }) {
  const claimedBy = new Map<string, number>();
  let claimed = 0;
  return {
    /** Claims a place for `userId` (429 TooManyRequestsError over a limit); answers the release. */
    reserve(userId: string): () => void {
      if (count.open() + claimed >= settings.total) throw new ApiError('TooManyRequestsError', `This server has ${settings.total} live streams open, its limit: try again later`);
      if (count.openOf(userId) + (claimedBy.get(userId) ?? 0) >= settings.perUser) {
        throw new ApiError('TooManyRequestsError', `You have ${settings.perUser} live streams open, the limit per user: delete one first (DELETE …/streams/{id})`);
      }
      claimed++;
      claimedBy.set(userId, (claimedBy.get(userId) ?? 0) + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        claimed--;
        const n = (claimedBy.get(userId) ?? 1) - 1;
        if (n > 0) claimedBy.set(userId, n);
        else claimedBy.delete(userId);
      };
    },
    reserved: (): number => claimed,
  };
}
