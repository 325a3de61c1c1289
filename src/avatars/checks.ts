import { join } from 'node:path';
import { FootageError, probeVideo } from '../footage/probe.ts';
import { extractAudio } from '../footage/audio.ts';
import { detectSpeech } from '../footage/vad.ts';
import { detectSound } from '../footage/silence.ts';
import { motionEnergy, percentile } from '../footage/motion.ts';
import { IDENTITY_THRESHOLDS, identityScore, median } from '../footage/identity.ts';
import { CheckFailure, FACING, isFacing, round } from '../consents/contract.ts';
import type { AvatarDeps } from './deps.ts';
import type { AvatarDetails, FootageCheckStep } from './kind.ts';

/**
 * The limits avatar footage is held to (docs/avatars.md, with how each was chosen). The
 * interface's: at least 5 minutes, the last 30 seconds or more silent and idle, one person,
 * facing the camera, visible throughout; and the same person as in the consent video.
 */
export const FOOTAGE_LIMITS = {
  minSec: 300,
  silentEndingSec: 30,
  /** The sound level check (ffmpeg silencedetect) may find the end of sound this much later than voice activity does. */
  soundToleranceSec: 1,
  minShortSide: 360,
  frames: 30,
  endingFrames: 8,
  oneFaceShare: 0.95,
  facingShare: 0.9,
  /**
   * Mean absolute luma change between frames (0-255) over the silent ending, and its 95th
   * percentile: a still face measures 0.00, a face speaking 1.6 / 3.5, a slow zoom 5.1 / 10
   * (docs/face-identity.md).
   */
  idleMotionMean: 1.0,
  idleMotionP95: 3.0,
  /**
   * Mouth closed: the ending's median inner-lip gap (over the face height) at most the
   * person's own resting gap (the 10th percentile over the whole footage, as lips part at
   * rest for some) plus this margin, and never above MOUTH_OPEN_MAX.
   */
  mouthMargin: 0.02,
  mouthOpenMin: 0.04,
  mouthOpenMax: 0.08,
} as const;

/** The windows training uses; with `review` when an operator must first decide on the identity. */
export interface ChecksOutcome {
  windows: NonNullable<AvatarDetails['windows']>;
  review?: string;
}

/**
 * Runs every footage check in order, recording each (measured, limit, passed) as it ends;
 * the first that fails throws a CheckFailure naming it, its value and its limit. An identity
 * score in the review band ends with `review` set: an operator decides (`mimic avatars review`).
 */
export async function checkFootage(
  deps: Pick<AvatarDeps, 'faces' | 'consents'>,
  avatar: { userId: string; details: AvatarDetails },
  video: string,
  workDir: string,
  signal: AbortSignal,
  record: (step: FootageCheckStep) => Promise<void>,
  maxSec: number,
): Promise<ChecksOutcome> {
  const L = FOOTAGE_LIMITS;
  const check = async (step: FootageCheckStep, description: string) => {
    await record(step);
    if (!step.passed) throw new CheckFailure('FootageError', `Footage check '${step.check}' failed: ${description}`);
  };

  let probe;
  try {
    probe = await probeVideo(video, signal);
  } catch (err) {
    if (!(err instanceof FootageError)) throw err;
    await check({ check: 'length', passed: false, measured: { error: err.message }, limit: { decodes: true } }, `the footage does not decode as a video (${err.message})`);
    throw err;
  }
  const duration = probe.durationSec;
  await check(
    { check: 'length', passed: duration >= L.minSec && duration <= maxSec, measured: { duration_sec: round(duration, 2) }, limit: { min_sec: L.minSec, max_sec: maxSec } },
    duration < L.minSec ? `the footage is ${fmt(duration)} long; at least ${fmt(L.minSec)} is needed` : `the footage is ${fmt(duration)} long; at most ${fmt(maxSec)} is checked`,
  );
  const shortSide = Math.min(probe.width, probe.height);
  await check(
    { check: 'resolution', passed: shortSide >= L.minShortSide, measured: { width: probe.width, height: probe.height }, limit: { min_short_side: L.minShortSide } },
    `the footage is ${probe.width}x${probe.height}; its shorter side must be at least ${L.minShortSide} pixels`,
  );

  // Sound: speech in the first part, silence at the end (voice activity, cross-checked by the sound level).
  const wav = join(workDir, 'footage.wav');
  const audio = probe.hasAudio ? await extractAudio(video, wav, { signal }) : null;
  await check({ check: 'sound', passed: !!audio, measured: { has_audio: probe.hasAudio, audio_codec: probe.audioCodec }, limit: { has_audio: true } }, 'the footage has no sound track (the voice is measured from it, and its ending must be silent)');
  const vad = await detectSpeech(wav, signal);
  const level = await detectSound(wav, signal);
  const vadTail = duration - (vad.lastSpeechEndSec ?? 0);
  const soundTail = duration - (level.lastSpeechEndSec ?? 0);
  const silentTail = Math.min(vadTail, soundTail + L.soundToleranceSec);
  await check(
    {
      check: 'silent_ending', passed: vadTail >= L.silentEndingSec && soundTail + L.soundToleranceSec >= L.silentEndingSec,
      measured: { silent_sec: round(Math.max(0, silentTail), 2), no_voice_sec: round(vadTail, 2), quiet_sec: round(soundTail, 2), speech_sec: round(vad.speechSec, 1) },
      limit: { min_sec: L.silentEndingSec },
    },
    `the last ${fmtSec(Math.max(0, silentTail))} are silent (no voice for ${fmtSec(vadTail)}, no sound for ${fmtSec(soundTail)}); at least ${L.silentEndingSec} s must be`,
  );
  const idle = { fromSec: round(duration - Math.min(vadTail, soundTail) + 0.5, 3), toSec: round(duration, 3) };
  const speech = { fromSec: 0, toSec: round(Math.max(0, idle.fromSec - 0.5), 3) };

  // One person, facing the camera, visible throughout (sampled over the whole footage).
  // The probe's duration: sample() would probe the file again without it.
  const frames = await deps.faces.sample(video, { count: L.frames, toSec: duration, signal });

  // Idle: little motion, and the mouth closed (at the person's own resting gap), in the silent ending.
  const motion = await motionEnergy(video, { fromSec: idle.fromSec, toSec: idle.toSec, signal });
  const ending = await deps.faces.sample(video, { count: L.endingFrames, fromSec: idle.fromSec, toSec: idle.toSec, signal });
  const mouths = ending.flatMap((f) => (f.faces.length ? [f.faces[0]!.mouthOpen] : []));
  const mouth = mouths.length ? median(mouths) : 1;
  // Faces come largest first (FaceAnalyzer.sample).
  const resting = percentile(frames.flatMap((f) => (f.faces.length ? [f.faces[0]!.mouthOpen] : [])), 10);
  const mouthLimit = Math.min(L.mouthOpenMax, Math.max(L.mouthOpenMin, resting + L.mouthMargin));
  await check(
    {
      check: 'idle_ending', passed: motion.mean <= L.idleMotionMean && motion.p95 <= L.idleMotionP95 && mouth <= mouthLimit,
      measured: { motion_mean: round(motion.mean), motion_p95: round(motion.p95), mouth_open_median: round(mouth), resting_mouth_open: round(resting), frames_with_face: mouths.length },
      limit: { motion_mean_max: L.idleMotionMean, motion_p95_max: L.idleMotionP95, mouth_open_median_max: round(mouthLimit) },
    },
    mouth > mouthLimit && motion.mean <= L.idleMotionMean && motion.p95 <= L.idleMotionP95
      ? `the mouth is open in the silent ending (median opening ${round(mouth)} of the face height; at most ${round(mouthLimit)})`
      : `the silent ending is not still: mean motion ${round(motion.mean, 2)} (at most ${L.idleMotionMean}), 95th percentile ${round(motion.p95, 2)} (at most ${L.idleMotionP95})`,
  );

  const single = frames.filter((f) => f.faces.length === 1);
  const none = frames.filter((f) => f.faces.length === 0).length;
  const several = frames.filter((f) => f.faces.length > 1).length;
  const share = single.length / Math.max(1, frames.length);
  await check(
    { check: 'one_person', passed: share >= L.oneFaceShare, measured: { frames: frames.length, one_face: single.length, no_face: none, several_faces: several, share: round(share) }, limit: { min_share: L.oneFaceShare } },
    several > 0 && several >= none
      ? `more than one face is visible in ${several} of ${frames.length} sampled frames; the footage must show one person`
      : `one face must be visible throughout; it was in ${single.length} of ${frames.length} sampled frames (share ${round(share)}; at least ${L.oneFaceShare})`,
  );
  const facing = single.filter((f) => isFacing(f.faces[0]!)).length;
  const facingShare = facing / Math.max(1, single.length);
  await check(
    {
      check: 'facing_camera', passed: facingShare >= L.facingShare,
      measured: { share: round(facingShare), median_abs_yaw: round(median(single.map((f) => Math.abs(f.faces[0]!.yaw))), 1), median_abs_pitch: round(median(single.map((f) => Math.abs(f.faces[0]!.pitch))), 1) },
      limit: { min_share: L.facingShare, max_abs_yaw: FACING.maxYaw, max_abs_pitch: FACING.maxPitch },
    },
    `the face looks at the camera in ${facing} of ${single.length} frames (share ${round(facingShare)}; at least ${L.facingShare})`,
  );

  // The same person as in the consent video.
  const consentFrames = await deps.consents.faces(avatar.userId, avatar.details.consentId);
  if (!consentFrames || consentFrames.length === 0) throw new CheckFailure('ConsentError', 'The consent video\'s face record is gone (the consent was deleted): the footage cannot be compared with it');
  const identity = identityScore(consentFrames, single);
  const T = IDENTITY_THRESHOLDS;
  const step: FootageCheckStep = {
    check: 'same_person', passed: identity.median >= T.accept,
    measured: { median_similarity: round(identity.median), pairs: identity.pairs },
    limit: { accept_at_least: T.accept, review_at_least: T.review },
  };
  if (!step.passed && identity.median >= T.review) {
    step.note = 'in the review band: an operator compares the consent video and the footage (mimic avatars review)';
    await record(step);
    return { windows: { idle, speech }, review: `The face in the footage is similar to the consent video's but not clearly the same person (median similarity ${round(identity.median)}; ${T.accept} passes, below ${T.review} is refused)` };
  }
  await check(step, `the person in the footage is not the person in the consent video (median face similarity ${round(identity.median)}; at least ${T.accept})`);
  return { windows: { idle, speech } };
}

const fmtSec = (s: number): string => `${s.toFixed(1)} s`;
const fmt = (s: number): string => (s % 60 < 0.05 ? `${Math.round(s / 60)} min` : `${Math.floor(s / 60)} min ${(s % 60).toFixed(1)} s`);
