import type { Static } from '@sinclair/typebox';
import { isoTime } from '../clock.ts';
import type { Animation as AnimationSchema } from './schemas.ts';
import type { MediaAccess } from '../media/index.ts';
import { DEFAULT_CATEGORY } from './driver-bank.ts';
import { resultFormatOf } from '../media/checks.ts';
import { resultFrame } from './checks.ts';
import { DEFAULT_LOGO_KEY, defaultLogoPosition } from './logo.ts';
import type { Animation } from './kind.ts';

export type AnimationView = Static<typeof AnimationSchema>;

/**
 * `config.logo` as the interface shows it: a custom logo as requested; the default logo as
 * `{url, position}`, a signed URL of the user's copy and the top-left corner where the
 * renderer draws it (known once the result frame is: always without stitch, with stitch once
 * the source's size is); `false` when turned off.
 */
function logoOf(a: Animation, media: Pick<MediaAccess, 'signedUrl'>): unknown {
  const logo = a.req.config?.logo;
  if (logo === false || typeof logo === 'object') return logo;
  const frame = resultFrame(a.req.config?.stitch ?? false, a.details.sourceSize ?? null);
  return { url: media.signedUrl(a.userId, DEFAULT_LOGO_KEY), ...(frame ? { position: defaultLogoPosition(frame) } : {}) };
}

/** The record as GET /animations/{id} and the webhook show it. Signed URLs are minted fresh. */
export function presentAnimation(a: Animation, media: Pick<MediaAccess, 'signedUrl'>): AnimationView {
  const { row, req, details, result } = a;
  const cfg = req.config ?? {};
  const view: AnimationView = {
    id: row.id,
    object: 'animation',
    status: row.status as AnimationView['status'],
    created_at: isoTime(row.createdAt),
    modified_at: isoTime(row.modifiedAt),
    created_by: row.userId,
    user_id: row.userId,
    // Until the worker has stored its copy, an https source shows as requested.
    source_url: details.sourceKey ? media.signedUrl(row.userId, details.sourceKey) : req.source_url!,
    driver_url: req.driver_url ?? `bank://${DEFAULT_CATEGORY}/`,
    task: true,
    config: {
      logo: logoOf(a, media),
      mute: cfg.mute ?? true,
      stitch: cfg.stitch ?? false,
      max_animated_faces: cfg.max_animated_faces ?? 5,
      motion_factor: 1,
      result_format: `.${resultFormatOf(req)}` as const,
      ...(cfg.overlay !== undefined ? { overlay: cfg.overlay } : {}),
    },
    metadata: { driver_url: details.driverResolved, ...(result?.metadata ?? {}) },
  };
  if (row.startedAt !== null) view.started_at = isoTime(row.startedAt);
  if (req.face) view.face = req.face;
  if (result) view.face_ids = result.faceIds;
  if (row.status === 'done' && result) {
    if (result.resultKey) view.result_url = media.signedUrl(row.userId, result.resultKey);
    else if (result.resultExternalUrl) view.result_url = result.resultExternalUrl;
  }
  if (row.status === 'started' && row.progressTotal) {
    view.progress = { frames_done: row.progressDone ?? 0, frames_total: row.progressTotal };
  }
  if (row.webhookUrl) view.webhook = row.webhookUrl;
  if (req.user_data !== undefined) view.user_data = req.user_data;
  if (row.error) view.error = JSON.parse(row.error) as { kind: string; description: string };
  return view;
}
