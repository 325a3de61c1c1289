import type { Static } from '@sinclair/typebox';
import { isoTime } from '../clock.ts';
import type { Animation } from '../schemas/animations.ts';
import type { CreateAnimationBody } from '../schemas/animations.ts';
import type { AnimationRow } from './store.ts';
import type { MediaAccess } from '../media/index.ts';
import { DEFAULT_CATEGORY } from './driver-bank.ts';
import { resultFormatOf } from './checks.ts';

export type AnimationView = Static<typeof Animation>;

/** The record as GET /animations/{id} and the webhook show it. Signed URLs are minted fresh. */
export function presentAnimation(row: AnimationRow, media: Pick<MediaAccess, 'signedUrl'>): AnimationView {
  const req = JSON.parse(row.request) as CreateAnimationBody;
  const cfg = req.config ?? {};
  const view: AnimationView = {
    id: row.id,
    object: 'animation',
    status: row.status,
    created_at: isoTime(row.createdAt),
    modified_at: isoTime(row.modifiedAt),
    created_by: row.userId,
    user_id: row.userId,
    // Until the worker has stored its copy, an https source shows as requested.
    source_url: row.sourceKey ? media.signedUrl(row.userId, row.sourceKey) : req.source_url!,
    driver_url: req.driver_url ?? `bank://${DEFAULT_CATEGORY}/`,
    task: true,
    config: {
      ...(cfg.logo !== undefined ? { logo: cfg.logo } : {}),
      mute: cfg.mute ?? true,
      stitch: cfg.stitch ?? false,
      max_animated_faces: cfg.max_animated_faces ?? 5,
      motion_factor: 1,
      result_format: `.${resultFormatOf(req)}` as const,
      ...(cfg.overlay !== undefined ? { overlay: cfg.overlay } : {}),
    },
    metadata: { driver_url: row.driverResolved, ...(row.metadata ? JSON.parse(row.metadata) : {}) },
  };
  if (row.startedAt !== null) view.started_at = isoTime(row.startedAt);
  if (req.face) view.face = req.face;
  if (row.faceIds) view.face_ids = JSON.parse(row.faceIds) as number[];
  if (row.status === 'done') {
    if (row.resultKey) view.result_url = media.signedUrl(row.userId, row.resultKey);
    else if (row.resultExternalUrl) view.result_url = row.resultExternalUrl;
  }
  if (row.status === 'started' && row.progressTotal) {
    view.progress = { frames_done: row.progressDone ?? 0, frames_total: row.progressTotal };
  }
  if (req.webhook) view.webhook = req.webhook;
  if (req.user_data !== undefined) view.user_data = req.user_data;
  if (row.error) view.error = JSON.parse(row.error) as { kind: string; description: string };
  return view;
}
