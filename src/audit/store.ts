import type Database from 'better-sqlite3';
import type { Store } from '../db/client.ts';
import type { AuditEventRow } from '../db/schema.ts';
import type { PageCursor } from '../pagination.ts';

/**
 * The audit trail of secrets, tools and the person's own sign-ins. Rows hold ids, outcomes
 * and non-secret facts only (upstream status, error kind, duration, the address a sign-in
 * came from): a credential value (a password, a token, a secret) has no column to go into,
 * and `detail` is built by the callers from fixed fields, never from a request body.
 */
export type AuditAction =
  | 'secret.created'
  | 'secret.updated'
  | 'secret.deleted'
  | 'secret.used'
  | 'secret.refreshed'
  | 'secret.needs_reauthorization'
  /** An OAuth connect attempt ended: success (the secret made or reconnected) or failure (`detail.reason`). */
  | 'secret.connect'
  | 'tool.created'
  | 'tool.updated'
  | 'tool.deleted'
  | 'tool.called'
  /** A studio sign-in with the account's email: success (a new session) or failure (a wrong password; a throttled attempt writes nothing). */
  | 'account.sign_in'
  | 'account.signed_out'
  /** A session ended from the account's session list (DELETE /account/sessions/{id}). */
  | 'account.session_revoked'
  /** PUT /account/password: success, or failure for a wrong current password. */
  | 'account.password_changed'
  /** An operator's one-time link used: `detail.type` invite (the first password) or reset. */
  | 'account.invite_accepted';

/** Every action, for the API's description and the studio's filter. */
export const AUDIT_ACTIONS: readonly AuditAction[] = [
  'secret.created', 'secret.updated', 'secret.deleted', 'secret.used', 'secret.refreshed', 'secret.needs_reauthorization', 'secret.connect',
  'tool.created', 'tool.updated', 'tool.deleted', 'tool.called',
  'account.sign_in', 'account.signed_out', 'account.session_revoked', 'account.password_changed', 'account.invite_accepted',
];

export interface AuditDetail {
  upstream_status?: number;
  error_kind?: string;
  reason?: string;
  duration_ms?: number;
  type?: string;
  provider?: string;
  changed?: string[];
  /** The agent chat whose model asked for a tool call. */
  chat_id?: string;
  /** The studio session an account event concerns. */
  session_id?: string;
  /** Where a sign-in came from: the client's address (an IPv6 address as given). */
  address?: string;
}

export interface AuditEntry {
  userId: string;
  action: AuditAction;
  outcome: 'success' | 'failure';
  secretId?: string | null;
  toolId?: string | null;
  callId?: string | null;
  /** The end user a browser's client key named, when one made the request. */
  externalId?: string | null;
  detail?: AuditDetail;
}

/** An entry ready to be written: its id and time are the caller's (injectable ids and clock). */
export interface AuditRecord extends AuditEntry {
  id: string;
  at: number;
}

export interface AuditFilter {
  userId: string;
  secretId?: string;
  toolId?: string;
  /** One action (`secret.used`). */
  action?: string;
  /** A family of actions by its prefix (`account.`, from `account.*`). */
  actionPrefix?: string;
  outcome?: 'success' | 'failure';
  /** Events at or after this time (ms). */
  since?: number;
  /** Events strictly before this time (ms). */
  until?: number;
}

export interface AuditStore {
  append(record: AuditRecord): Promise<void>;
  /** Newest first, `limit` rows strictly after `cursor` in (at desc, id desc) order. */
  list(filter: AuditFilter, limit: number, cursor: PageCursor | null): Promise<AuditEventRow[]>;
}

/** An audit_events row as SQL returns it (both dialects). */
export type RawAuditRow = {
  id: string;
  user_id: string;
  at: number;
  action: string;
  outcome: 'success' | 'failure';
  secret_id: string | null;
  tool_id: string | null;
  call_id: string | null;
  external_id: string | null;
  detail: string;
};

export const toRow = (r: RawAuditRow): AuditEventRow => ({
  id: r.id, userId: r.user_id, at: r.at, action: r.action, outcome: r.outcome, secretId: r.secret_id, toolId: r.tool_id, callId: r.call_id, externalId: r.external_id, detail: r.detail,
});

/**
 * The synchronous insert, for the other store modules that write an audit row inside their
 * own transaction (a secret created and its audit row commit together).
 */
export function auditWriter(sqlite: Database.Database): (record: AuditRecord) => void {
  const insert = sqlite.prepare(
    `INSERT INTO audit_events (id, user_id, at, action, outcome, secret_id, tool_id, call_id, external_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  return (e) => {
    insert.run(e.id, e.userId, e.at, e.action, e.outcome, e.secretId ?? null, e.toolId ?? null, e.callId ?? null, e.externalId ?? null, JSON.stringify(e.detail ?? {}));
  };
}

/**
 * The filtered list: one statement per combination of filters (a few hundred at most), each
 * prepared once on first use. `?`-parameters only; the keyset condition is spelled out (no row
 * values). A family of actions is a range on the text (`action >= 'account.' AND action <
 * 'account/'`), not a LIKE, so that `_` in a name is not a wildcard.
 */
function auditLister(sqlite: Database.Database) {
  const statements = new Map<string, Database.Statement<unknown[], RawAuditRow>>();
  return (f: AuditFilter, limit: number, cursor: PageCursor | null): RawAuditRow[] => {
    const conditions = ['user_id = ?'];
    const params: unknown[] = [f.userId];
    if (f.secretId) conditions.push('secret_id = ?'), params.push(f.secretId);
    if (f.toolId) conditions.push('tool_id = ?'), params.push(f.toolId);
    if (f.action) conditions.push('action = ?'), params.push(f.action);
    if (f.actionPrefix) conditions.push('action >= ? AND action < ?'), params.push(f.actionPrefix, prefixEnd(f.actionPrefix));
    if (f.outcome) conditions.push('outcome = ?'), params.push(f.outcome);
    if (f.since !== undefined) conditions.push('at >= ?'), params.push(f.since);
    if (f.until !== undefined) conditions.push('at < ?'), params.push(f.until);
    if (cursor) conditions.push('(at < ? OR (at = ? AND id < ?))'), params.push(cursor.createdAt, cursor.createdAt, cursor.id);
    const sql = `SELECT * FROM audit_events WHERE ${conditions.join(' AND ')} ORDER BY at DESC, id DESC LIMIT ?`;
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = sqlite.prepare<unknown[], RawAuditRow>(sql)));
    return statement.all(...params, limit);
  };
}

/** The first text after every text that starts with `prefix` (its last character moved up by one). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

export function createSqliteAuditStore(handle: Store): AuditStore {
  const write = auditWriter(handle.sqlite);
  const list = auditLister(handle.sqlite);
  return {
    append: async (record) => write(record),
    list: async (filter, limit, cursor) => list(filter, limit, cursor).map(toRow),
  };
}
