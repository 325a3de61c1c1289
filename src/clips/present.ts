import type { Static } from '@sinclair/typebox';
import { isoTime } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import type { Clip as ClipSchema } from './schemas.ts';
import type { Clip } from './kind.ts';
import type { PendingVideos } from '../speaking/pending.ts';
import { speakingFields } from '../speaking/present.ts';

export type ClipView = Static<typeof ClipSchema>;

/** The record as GET /clips/{id} and the webhook show it. Signed URLs are minted fresh. */
export function presentClip(c: Clip, media: Pick<MediaAccess, 'signedUrl'>, pending?: Pick<PendingVideos, 'url'>): ClipView {
  const { row, req, details } = c;
  const cfg = req.config ?? {};
  const view: ClipView = {
    id: row.id,
    object: 'clip',
    owner_id: row.userId,
    created_by: row.userId,
    status: row.status as ClipView['status'],
    presenter_id: details.presenterId,
    created_at: isoTime(row.createdAt),
    modified_at: isoTime(row.modifiedAt),
    script: req.script,
    config: {
      logo: cfg.logo ?? true,
      result_format: cfg.result_format ?? 'mp4',
      ...(cfg.output_resolution !== undefined ? { output_resolution: cfg.output_resolution } : {}),
    },
    credits: row.credits,
    metadata: {},
  };
  return Object.assign(view, speakingFields(c, media, pending));
}
