import { isoTime } from '../clock.ts';
import type { MediaAccess } from '../media/index.ts';
import type { Static, TObject } from '@sinclair/typebox';
import type { speakingRecordFields } from './schemas.ts';
import type { ResourceRow } from '../resources/store.ts';
import type { PendingVideos } from './pending.ts';
import type { SpeakingResult, SpeakingVoice } from './records.ts';

/** The fields a clip's record and a talk's show alike: the voice, the times, the render, its delivery, the error. */
export type SpeakingFields = Pick<Static<TObject<typeof speakingRecordFields>>, 'metadata' | 'name' | 'started_at' | 'completed_at' | 'result_url' | 'audio_url' | 'duration' | 'pending_url' | 'progress' | 'webhook' | 'user_data' | 'error'>;

/** A clip's or a talk's speaking fields. Signed URLs are minted fresh. */
export function speakingFields(
  c: { row: ResourceRow; req: { name?: string; user_data?: string }; details: { voice: SpeakingVoice | null }; result: SpeakingResult | null },
  media: Pick<MediaAccess, 'signedUrl'>,
  pending?: Pick<PendingVideos, 'url'>,
): SpeakingFields {
  const { row, req, details, result } = c;
  const fields: SpeakingFields = { metadata: {} };
  if (details.voice) {
    const { type, voiceId, fallback } = details.voice;
    fields.metadata.voice = { type, voice_id: voiceId, ...(fallback ? { fallback: { requested: { type: fallback.requested.type, voice_id: fallback.requested.voiceId }, reason: fallback.reason } } : {}) };
  }
  if (req.name !== undefined) fields.name = req.name;
  if (row.startedAt !== null) fields.started_at = isoTime(row.startedAt);
  if (row.finishedAt !== null) fields.completed_at = isoTime(row.finishedAt);
  if (row.status === 'done' && result) {
    if (result.resultKey) fields.result_url = media.signedUrl(row.userId, result.resultKey);
    else if (result.resultExternalUrl) fields.result_url = result.resultExternalUrl;
    fields.audio_url = media.signedUrl(row.userId, result.audioKey);
    fields.duration = result.durationSec;
    const m = result.metadata;
    Object.assign(fields.metadata, {
      num_frames: m.num_frames, resolution: m.resolution, video_fps: m.video_fps, processing_fps: m.processing_fps, size_kib: m.size_kib, speech_duration: result.speechSec,
    });
  }
  if (row.status === 'started') {
    const url = pending?.url(row.id);
    if (url) fields.pending_url = url;
  }
  if (row.status === 'started' && row.progressTotal) fields.progress = { frames_done: row.progressDone ?? 0, frames_total: row.progressTotal };
  if (row.webhookUrl) fields.webhook = row.webhookUrl;
  if (req.user_data !== undefined) fields.user_data = req.user_data;
  if (row.error) fields.error = JSON.parse(row.error) as { kind: string; description: string };
  return fields;
}
