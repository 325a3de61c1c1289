/**
 * What the audit capability offers the others: the audit row shapes, its store (`AUDIT`) and
 * the ways to write one — `auditRecord` (an entry with its id and time), and `auditWriter` (SQLite) or `appendAudit`
 * (PostgreSQL, on the transaction's client) that a store method calls inside its own transaction, so the row
 * commits with the change it records).
 * Other capabilities import this file only, never the audit folder's other files.
 */
import { defineServiceKey } from '../platform/service-key.ts';
import type { AuditStore } from './store.ts';

export type { AuditAction, AuditDetail, AuditEntry, AuditRecord, AuditStore } from './store.ts';
export { auditWriter, AUDIT_ACTIONS } from './store.ts';
export { appendAudit } from './store-pg.ts';
export { auditRecord } from './record.ts';

/** The audit store, built by the audit module from the platform's handle: what writes a row outside a store's transaction and lists them. */
export const AUDIT = defineServiceKey<AuditStore>('audit');
