import { ApiError } from '../errors.ts';
import type { FieldError } from '../schemas/ajv.ts';
import type { AuditFilter } from './store.ts';

/** An action (`secret.used`) or a family of them (`account.*`): lower-case words and underscores. */
const ACTION = /^[a-z][a-z_]{0,39}\.(?:[a-z][a-z_]{0,39}|\*)$/;
const ID = /^[A-Za-z0-9_-]{1,100}$/;
/** An ISO 8601 time with its zone (`2026-11-28T08:00:00Z`, `...+01:00`), or a date (`2026-11-28`, midnight UTC). */
const TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

export interface AuditQuery {
  secret_id?: string;
  tool_id?: string;
  action?: string;
  outcome?: string;
  since?: string;
  until?: string;
}

function time(value: string, field: string, problems: FieldError[]): number | undefined {
  const ms = TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) problems.push({ field, message: 'must be an ISO 8601 time with its zone (2026-11-28T08:00:00Z) or a date (2026-11-28)' });
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * GET /audit's filters, from its query: each checked, every problem named in `details` (a
 * 400 BadRequestError), an empty value the same as none.
 */
export function auditFilterOf(userId: string, q: AuditQuery): AuditFilter {
  const problems: FieldError[] = [];
  const filter: AuditFilter = { userId };
  if (q.secret_id) {
    if (ID.test(q.secret_id)) filter.secretId = q.secret_id;
    else problems.push({ field: 'secret_id', message: 'is not a secret id' });
  }
  if (q.tool_id) {
    if (ID.test(q.tool_id)) filter.toolId = q.tool_id;
    else problems.push({ field: 'tool_id', message: 'is not a tool id' });
  }
  if (q.action) {
    if (!ACTION.test(q.action)) problems.push({ field: 'action', message: 'must be an action (secret.used) or a family of them (account.*)' });
    else if (q.action.endsWith('.*')) filter.actionPrefix = q.action.slice(0, -1);
    else filter.action = q.action;
  }
  if (q.outcome) {
    if (q.outcome === 'success' || q.outcome === 'failure') filter.outcome = q.outcome;
    else problems.push({ field: 'outcome', message: 'must be success or failure' });
  }
  const since = q.since ? time(q.since, 'since', problems) : undefined;
  const until = q.until ? time(q.until, 'until', problems) : undefined;
  if (since !== undefined) filter.since = since;
  if (until !== undefined) filter.until = until;
  if (since !== undefined && until !== undefined && until <= since) problems.push({ field: 'until', message: 'must be later than since' });
  if (problems.length) {
    const first = problems[0]!;
    throw new ApiError('BadRequestError', `Invalid query: ${first.field} ${first.message}`, problems);
  }
  return filter;
}
