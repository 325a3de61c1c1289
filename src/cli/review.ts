import { UsageError, type Command } from './command.ts';
import { withStores } from './stores.ts';
import type { Stores } from '../db/stores.ts';
import type { MediaAccess } from '../media/index.ts';

/** What a review queue offers its commands: the pending items (JSON-able), and a decision on one. */
export interface ReviewQueue {
  /** e.g. 'consents'. */
  group: string;
  /** e.g. 'consent'. */
  what: string;
  listHelp: string;
  approveHelp: string;
  rejectHelp: string;
  pending(stores: Stores, media: MediaAccess): Promise<object[]>;
  decide(stores: Stores, media: MediaAccess, id: string, decision: 'approve' | 'reject', reason: string): Promise<'approved' | 'rejected' | 'not-pending'>;
}

/** `<group> review`, `<group> approve <id>`, `<group> reject <id> --reason "..."`: an operator's review queue. */
export function reviewCommands(q: ReviewQueue): Record<string, Command> {
  const decide = (decision: 'approve' | 'reject'): Command => ({
    usage: `${q.group} ${decision} <${q.what} id> ${decision === 'reject' ? '--reason "..."' : '[--reason "..."]'}`,
    help: decision === 'approve' ? q.approveHelp : q.rejectHelp,
    options: { reason: { type: 'string' } },
    positionals: 1,
    async run(ctx, values, positionals) {
      const id = positionals[0];
      if (!id) throw new UsageError(`the ${q.what} id is required`);
      const reason = typeof values.reason === 'string' ? values.reason.trim() : '';
      if (decision === 'reject' && !reason) throw new UsageError('--reason is required to reject');
      return withStores(ctx, async (stores, media) => {
        const outcome = await q.decide(stores, media, id, decision, reason);
        if (outcome === 'not-pending') {
          ctx.err(`${q.what} ${id} does not wait for a review (unknown, decided already, or never sent to review)`);
          return 1;
        }
        ctx.out(JSON.stringify({ [`${q.what}_id`]: id, decision: outcome, ...(reason ? { reason } : {}) }));
        return 0;
      });
    },
  });
  return {
    [`${q.group} review`]: {
      usage: `${q.group} review`,
      help: q.listHelp,
      async run(ctx) {
        return withStores(ctx, async (stores, media) => {
          const pending = await q.pending(stores, media);
          for (const p of pending) ctx.out(JSON.stringify(p));
          if (pending.length === 0) ctx.err(`no ${q.what} waits for a review`);
          return 0;
        });
      },
    },
    [`${q.group} approve`]: decide('approve'),
    [`${q.group} reject`]: decide('reject'),
  };
}
