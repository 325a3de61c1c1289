import { ApiError } from '../errors.ts';
import type { StreamSettings } from './settings.ts';
import type { StreamClient } from './sessions.ts';

/**
 * Who a stream counts against: its owner's own streams (opened with an API key or a token),
 * or one end user of a client key. A page that embeds an agent opens its visitors' streams
 * with the owner's client key; they count against that key and that visitor, never against
 * the owner's own allowance (else three visitors would use it up, and the owner's own calls
 * would be refused).
 */
export const holderOf = (userId: string, client: StreamClient | undefined): string => (client ? `${clientKeyHolder(client)}:${client.endUser}` : `user:${userId}`);
/** The client key as a whole: all its end users together. */
export const clientKeyHolder = (client: StreamClient): string => `key:${client.keyId}`;

/**
 * The stream limits of one API process: `perUser` open streams per user, `perClientKey` through
 * one client key and `perEndUser` per end user of one, `total` for all. A create claims its
 * place before its first await (the picture fetch, the renderer, ICE gathering), so two creates
 * at once cannot both take the last place; it gives the place back when it fails or once the
 * stream is open (then the stream itself counts).
 */
export function createStreamLimits(
  settings: Pick<StreamSettings, 'perUser' | 'total' | 'perClientKey' | 'perEndUser'>,
  count: { open(): number; openOf(holder: string): number },
) {
  const claimedBy = new Map<string, number>();
  let claimed = 0;
  const held = (holder: string) => count.openOf(holder) + (claimedBy.get(holder) ?? 0);
  const add = (holder: string, n: number) => {
    const next = (claimedBy.get(holder) ?? 0) + n;
    if (next > 0) claimedBy.set(holder, next);
    else claimedBy.delete(holder);
  };
  return {
    /** Claims a place for `userId`, or one end user of a client key of theirs (429 TooManyRequestsError over a limit); answers the release. */
    reserve(userId: string, client?: StreamClient): () => void {
      if (count.open() + claimed >= settings.total) throw new ApiError('TooManyRequestsError', `This server has ${settings.total} live streams open, its limit: try again later`);
      const holders = [holderOf(userId, client)];
      if (client) {
        if (held(holders[0]!) >= settings.perEndUser) {
          throw new ApiError('TooManyRequestsError', `This end user has ${settings.perEndUser} live streams open, the limit per end user of a client key: close one first`);
        }
        holders.push(clientKeyHolder(client));
        if (held(holders[1]!) >= settings.perClientKey) {
          throw new ApiError('TooManyRequestsError', `This client key has ${settings.perClientKey} live streams open, its limit: try again when one has closed`);
        }
      } else if (held(holders[0]!) >= settings.perUser) {
        throw new ApiError('TooManyRequestsError', `You have ${settings.perUser} live streams open, the limit per user: delete one first (DELETE …/streams/{id})`);
      }
      claimed++;
      for (const h of holders) add(h, 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        claimed--;
        for (const h of holders) add(h, -1);
      };
    },
    reserved: (): number => claimed,
  };
}
