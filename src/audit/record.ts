import type { IdFactory } from '../clock.ts';
import type { AuditEntry, AuditRecord } from './store.ts';

/** An audit entry with its id and time, ready for a store method to write in its transaction. */
export const auditRecord = (newId: IdFactory, at: number, entry: AuditEntry): AuditRecord => ({ id: newId('aud'), at, ...entry });
