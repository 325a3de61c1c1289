import { isoTime } from '../clock.ts';
import type { ToolRow } from '../db/schema.ts';
import type { ToolView } from './schemas.ts';

export function presentTool(row: ToolRow): ToolView {
  return {
    id: row.id,
    object: 'tool',
    name: row.name,
    description: row.description,
    provider: row.provider,
    schema: JSON.parse(row.schema) as ToolView['schema'],
    config: JSON.parse(row.config) as ToolView['config'],
    ...(row.secretId ? { auth: { secret_id: row.secretId } } : {}),
    created_at: isoTime(row.createdAt),
    updated_at: isoTime(row.updatedAt),
  };
}
