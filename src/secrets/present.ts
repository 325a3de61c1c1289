import { isoTime } from '../clock.ts';
import type { SecretRow } from '../db/schema.ts';
import type { SecretView } from './schemas.ts';
import { SECRET_MASK } from '../egress/credential.ts';

/** The only shape a secret leaves the service in: no field can hold a credential value. */
export function presentSecret(row: SecretRow): SecretView {
  return {
    id: row.id,
    provider: row.provider,
    type: row.type,
    sanitized_secret: SECRET_MASK,
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
    ...(row.lastUsedAt !== null ? { last_used_at: isoTime(row.lastUsedAt) } : {}),
    status: row.status,
    ...(row.type === 'api_key' && row.headerName ? { header_name: row.headerName } : {}),
    ...(row.type === 'oauth2' ? { expires_at: row.expiresAt === null ? null : isoTime(row.expiresAt) } : {}),
  };
}
