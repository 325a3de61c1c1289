import { Type } from '@sinclair/typebox';
import { IsoTime, named } from '../schemas/common.ts';
import { AUDIT_ACTIONS } from './store.ts';

/** JSON Schemas of the audit log (GET /audit): what happened to secrets, tools and sign-ins, without a secret. */
export const AuditEvent = named(
  'AuditEvent',
  Type.Object(
    {
      id: Type.String(),
      at: IsoTime,
      action: Type.String({ description: `one of ${AUDIT_ACTIONS.join(', ')}` }),
      outcome: Type.Union([Type.Literal('success'), Type.Literal('failure')]),
      secret_id: Type.Optional(Type.String()),
      tool_id: Type.Optional(Type.String()),
      call_id: Type.Optional(Type.String()),
      external_id: Type.Optional(Type.String({ description: 'the end user a browser client key named (Client-Key <key>.<externalId>_...)' })),
      detail: Type.Object({}, { additionalProperties: true, description: 'non-secret facts: upstream_status, error_kind, reason, duration_ms, changed fields; for sign-ins session_id and address' }),
    },
    { additionalProperties: false },
  ),
);
export const AuditList = Type.Object({ events: Type.Array(AuditEvent), token: Type.Optional(Type.String()) }, { additionalProperties: false });
