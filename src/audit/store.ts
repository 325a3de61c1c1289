import { and, desc, eq, sql } from 'drizzle-orm';
import { prepared } from '../db/prepared.ts';
import type { Store } from '../db/client.ts';
import { olderThan } from '../db/keyset.ts';
import { auditEvents, type AuditEventRow } from '../db/schema.ts';
import type { IdFactory } from '../clock.ts';
import type { PageCursor } from '../pagination.ts';

/**
 * The audit trail of secrets and tools. Rows hold ids, outcomes and non-secret facts only
 * (upstream status, error kind, duration): a credential value has no column to go into,
 * and `detail` is built by the callers below from fixed fields, never from a request body.
 */
export type AuditAction =
  | 'secret.created'
  | 'secret.updated'
  | 'secret.deleted'
  | 'secret.used'
  | 'secret.refreshed'
  | 'secret.needs_reauthorization'
  | 'tool.created'
  | 'tool.updated'
  | 'tool.deleted'
  | 'tool.called';

export interface AuditDetail {
  upstream_status?: number;
  error_kind?: string;
  reason?: string;
  duration_ms?: number;
  type?: string;
  provider?: string;
  changed?: string[];
}

export interface AuditEntry {
  userId: string;
  action: AuditAction;
  outcome: 'success' | 'failure';
  secretId?: string | null;
  toolId?: string | null;
  callId?: string | null;
  detail?: AuditDetail;
}

export function recordAudit(store: Store, newId: IdFactory, at: number, e: AuditEntry): void {
  const insert = prepared(store.db, 'recordAudit', (db) =>
    db
      .insert(auditEvents)
      .values({
        id: sql.placeholder('id'), userId: sql.placeholder('userId'), at: sql.placeholder('at'), action: sql.placeholder('action'),
        outcome: sql.placeholder('outcome'), secretId: sql.placeholder('secretId'), toolId: sql.placeholder('toolId'),
        callId: sql.placeholder('callId'), detail: sql.placeholder('detail'),
      })
      .prepare(),
  );
  insert.run({
    id: newId('aud'),
    userId: e.userId,
    at,
    action: e.action,
    outcome: e.outcome,
    secretId: e.secretId ?? null,
    toolId: e.toolId ?? null,
    callId: e.callId ?? null,
    detail: JSON.stringify(e.detail ?? {}),
  });
}

export interface AuditFilter {
  userId: string;
  secretId?: string;
  toolId?: string;
  action?: string;
}

export function listAudit(store: Store, f: AuditFilter, limit: number, cursor: PageCursor | null): AuditEventRow[] {
  return store.db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.userId, f.userId),
        f.secretId ? eq(auditEvents.secretId, f.secretId) : undefined,
        f.toolId ? eq(auditEvents.toolId, f.toolId) : undefined,
        f.action ? eq(auditEvents.action, f.action) : undefined,
        olderThan(auditEvents.at, auditEvents.id, cursor),
      ),
    )
    .orderBy(desc(auditEvents.at), desc(auditEvents.id))
    .limit(limit)
    .all();
}
