import { auditRecord, type AuditAction, type AuditDetail, type AuditStore } from '../audit/contract.ts';

/**
 * The account's own trail of sign-ins and sessions, in the audit log beside its secrets and
 * tools (GET /audit?action=account.*). What goes in is fixed fields only: the session's id,
 * the address, why it failed; never an email typed at sign-in, a password or a token.
 */
export interface AccountAudit {
  record(userId: string, action: AuditAction, outcome: 'success' | 'failure', detail?: AuditDetail): Promise<void>;
}

export function accountAudit(audit: AuditStore, deps: { clock: { now(): number }; newId: (prefix: string) => string }): AccountAudit {
  return {
    record: (userId, action, outcome, detail) => audit.append(auditRecord(deps.newId, deps.clock.now(), { userId, action, outcome, ...(detail ? { detail } : {}) })),
  };
}
