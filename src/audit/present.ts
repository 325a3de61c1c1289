import { isoTime } from '../clock.ts';
import type { AuditEventRow } from '../db/schema.ts';

export function presentAuditEvent(row: AuditEventRow) {
  return {
    id: row.id,
    at: isoTime(row.at),
    action: row.action,
    outcome: row.outcome,
    ...(row.secretId ? { secret_id: row.secretId } : {}),
    ...(row.toolId ? { tool_id: row.toolId } : {}),
    ...(row.callId ? { call_id: row.callId } : {}),
    ...(row.externalId ? { external_id: row.externalId } : {}),
    detail: JSON.parse(row.detail) as Record<string, unknown>,
  };
}
