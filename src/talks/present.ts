import type { Static } from '@sinclair/typebox';
import { isoTime } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import type { Talk as TalkSchema } from './schemas.ts';
import type { PendingVideos } from '../speaking/pending.ts';
import { speakingFields } from '../speaking/present.ts';
import type { Talk } from './kind.ts';
import { resultFormatOf } from '../media/checks.ts';

export type TalkView = Static<typeof TalkSchema>;

/** The record as GET /talks/{id} and the webhook show it (the hosted service's talk shape). */
export function presentTalk(t: Talk, media: Pick<MediaAccess, 'signedUrl'>, pending?: Pick<PendingVideos, 'url'>): TalkView {
  const { row, req } = t;
  const cfg = req.config ?? {};
  const view: TalkView = {
    id: row.id,
    object: 'talk',
    user_id: row.userId,
    created_by: row.userId,
    status: row.status as TalkView['status'],
    source_url: req.source_url,
    created_at: isoTime(row.createdAt),
    modified_at: isoTime(row.modifiedAt),
    script: req.script,
    config: {
      logo: cfg.logo ?? true,
      result_format: resultFormatOf(req),
      stitch: cfg.stitch ?? false,
      ...(cfg.fluent !== undefined ? { fluent: cfg.fluent } : {}),
      ...(cfg.pad_audio !== undefined ? { pad_audio: cfg.pad_audio } : {}),
      ...(cfg.output_resolution !== undefined ? { output_resolution: cfg.output_resolution } : {}),
    },
    credits: row.credits,
    metadata: {},
  };
  return Object.assign(view, speakingFields(t, media, pending));
}
