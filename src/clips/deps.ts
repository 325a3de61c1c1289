import type { Config } from '../config.ts';
import type { Clock, IdFactory } from '../clock.ts';
import type { JobQueue } from '../jobs/queue.ts';
import type { MediaAccess } from '../media/index.ts';
import type { GuardedClient } from '../egress/client.ts';
import type { ClipSchemas } from './schemas.ts';
import type { VoiceCatalogue } from '../voices/catalogue.ts';
import type { PresenterCatalogue } from '../presenters/catalogue.ts';
import type { ClipLifecycle } from './kind.ts';
import type { PendingVideos } from './pending.ts';

export interface ClipDeps {
  config: Config;
  lifecycle: ClipLifecycle;
  clock: Clock;
  newId: IdFactory;
  schemas: ClipSchemas;
  queue: JobQueue;
  media: MediaAccess;
  presenters: PresenterCatalogue;
  /** The platform's voice catalogue (`Platform.voices`); undefined: no voice can speak here, text scripts get 503. */
  voices: VoiceCatalogue | undefined;
  /** The videos being rendered, as HLS playlists (`pending_url`). */
  pending: PendingVideos;
  /** The request's URLs are checked against the egress policy before anything is stored. */
  client: Pick<GuardedClient, 'check'>;
}

export const CLIP_JOB = 'clip.render';

/**
 * The credit rule (docs/clips.md): one credit per started 15 seconds of speech, charged at
 * creation and refunded when the clip ends in error or is deleted before it is done.
 * A text's length is estimated at creation (CHARS_PER_SECOND, about 150 words a minute; SSML
 * tags and breaks are not counted); a stored audio (POST /audios) is measured; an https audio,
 * whose length is only known once the job fetches it, is charged HTTPS_AUDIO_CREDITS and may
 * be at most HTTPS_AUDIO_CREDITS * 15 seconds long (longer audios: upload them first).
 */
export const SECONDS_PER_CREDIT = 15;
export const CHARS_PER_SECOND = 14;
export const HTTPS_AUDIO_CREDITS = 4;

export const creditsForSeconds = (seconds: number): number => Math.max(1, Math.ceil(seconds / SECONDS_PER_CREDIT));

/** The spoken characters of a script's input (SSML tags removed). */
export const spokenText = (input: string, ssml: boolean): string =>
  (ssml ? input.replace(/<[^>]*>/g, ' ') : input).replace(/\s+/g, ' ').trim();

export const estimateSpeechSeconds = (input: string, ssml: boolean): number => spokenText(input, ssml).length / CHARS_PER_SECOND;
