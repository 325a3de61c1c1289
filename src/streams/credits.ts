/**
 * What speech on a stream costs: one credit per started SECONDS_PER_CREDIT s of what the
 * client heard (the clips' rate), charged as it is streamed.
 */
import { ApiError } from '../errors.ts';
import type { UserStore } from '../users/contract.ts';
import { SECONDS_PER_CREDIT, creditsForSeconds } from '../speaking/credits.ts';
import type { LiveStream } from './sessions.ts';

export function createStreamCredits(users: Pick<UserStore, 'get' | 'addCredits'>) {
  return {
    /** A script is accepted only from a user with a credit left. */
    async require(userId: string): Promise<void> {
      const user = await users.get(userId);
      if (!user || user.credits < 1) throw new ApiError('InsufficientCreditsError', `Not enough credits: speech on a stream costs one credit per started ${SECONDS_PER_CREDIT} s, charged as it is streamed`);
    },

    /**
     * Charges the speech the client heard, per streamed second: the stream's heard time adds up,
     * and a credit is taken as each started SECONDS_PER_CREDIT s of it begins (the clips' rate; two
     * 3 s scripts cost one credit). A short balance gives what is left.
     */
    async charge(s: LiveStream, spokenMs: number): Promise<void> {
      if (spokenMs <= 0) return;
      s.spokenMs += spokenMs;
      const credits = creditsForSeconds(s.spokenMs / 1000) - s.charged;
      if (credits <= 0) return;
      s.charged += credits;
      const change = await users.addCredits(s.userId, -credits);
      if (change.status === 'insufficient' && change.credits > 0) await users.addCredits(s.userId, -change.credits);
    },
  };
}

export type StreamCredits = ReturnType<typeof createStreamCredits>;
