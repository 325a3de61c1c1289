import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Job } from '../jobs/queue.ts';
import type { JobContext, JobOutcome } from '../jobs/worker.ts';
import { FootageError, probeVideo } from '../footage/probe.ts';
import { extractAudio } from '../footage/audio.ts';
import { detectSpeech } from '../footage/vad.ts';
import { MATCH_LIMITS, plausibleSpeechLength, type ConsentMatch } from './match.ts';
import { listenToConsent } from './words.ts';
import type { FrameFaces } from '../footage/faces.ts';
import { median } from '../footage/identity.ts';
import { findLanguage } from './languages/index.ts';
import { spokenStatement } from './create.ts';
import { readConsent, type ConsentDetails, type VerificationStep } from './kind.ts';
import type { ConsentDeps } from './deps.ts';
import { CheckFailure, FACING, fetchVideo, isFacing, round, stillOf, videoType } from './video.ts';

/**
 * The limits a consent video is held to (docs/consents.md). Frames are sampled evenly over
 * the whole video; "nearly all" is ONE_FACE_SHARE of them.
 */
export const CONSENT_LIMITS = {
  minSec: 3,
  frames: 16,
  oneFaceShare: 0.9,
  facingShare: 0.8,
  minSpeechSec: 1,
} as const;

/** The face descriptors a verified consent keeps for the avatar's identity check. */
export interface StoredFaces {
  frames: FrameFaces[];
}

/**
 * The job handler of `consent.verify`: each check in turn, each recorded on the record as it
 * ends (measured, limit, passed). The first that fails ends the consent in `error` naming it;
 * a language without a recogniser ends in an operator review (`mimic consents review`).
 */
export async function verifyConsent(deps: ConsentDeps, job: Job, ctx: JobContext): Promise<JobOutcome> {
  const row = await deps.lifecycle.getById(job.resourceId);
  if (!row || row.status !== 'validating') return;
  const consent = readConsent(row);
  if (consent.details.review) return;
  const id = row.id;
  const userId = row.userId;
  const details: ConsentDetails = { ...consent.details, steps: [] };
  const workDir = join(deps.config.dataDir, 'work', `${id}-${job.id}`);
  await mkdir(workDir, { recursive: true });
  const { signal } = ctx;

  const record = async (step: VerificationStep): Promise<void> => {
    details.steps.push(step);
    await deps.lifecycle.setDetails(id, details);
  };
  /** Records the step; throws the failure when it did not pass. */
  const check = async (step: VerificationStep, kind: string, description: string): Promise<void> => {
    await record(step);
    if (!step.passed) throw new CheckFailure(kind, description);
  };

  try {
    const lang = findLanguage(details.language);
    if (!lang) throw new CheckFailure('ConsentError', `The consent's language '${details.language}' is no longer supported`);
    const video = await fetchVideo(deps, { url: details.sourceUrl!, userId, workDir, maxBytes: deps.settings.maxVideoBytes, what: 'consent video', kind: 'ConsentVideoError' });

    // 1. It decodes, within the length limits.
    let probe;
    try {
      probe = await probeVideo(video, signal);
    } catch (err) {
      if (!(err instanceof FootageError)) throw err;
      await check({ check: 'decodes', passed: false, measured: { error: err.message }, limit: { decodes: true } }, 'ConsentVideoError', `The consent video does not decode as a video: ${err.message}`);
      throw err;
    }
    const lengthOk = probe.durationSec >= CONSENT_LIMITS.minSec && probe.durationSec <= deps.settings.maxVideoSec;
    await check(
      { check: 'decodes', passed: lengthOk, measured: { duration_sec: round(probe.durationSec), width: probe.width, height: probe.height, fps: round(probe.fps, 2), video_codec: probe.videoCodec }, limit: { min_sec: CONSENT_LIMITS.minSec, max_sec: deps.settings.maxVideoSec } },
      'ConsentVideoError',
      `The consent video is ${probe.durationSec.toFixed(1)} s long; it must be ${CONSENT_LIMITS.minSec} to ${deps.settings.maxVideoSec} s`,
    );
    details.videoKey = `consents/${id}/video${video.slice(video.lastIndexOf('.'))}`;
    await deps.media.putFile(userId, details.videoKey, video, videoType(video));

    // 2. It has sound, and speech in it.
    const wav = join(workDir, 'audio.wav');
    const audio = probe.hasAudio ? await extractAudio(video, wav, { signal }) : null;
    const speech = audio ? await detectSpeech(wav, signal) : null;
    await check(
      { check: 'sound', passed: !!speech && speech.speechSec >= CONSENT_LIMITS.minSpeechSec, measured: { has_audio: probe.hasAudio, audio_codec: probe.audioCodec, speech_sec: speech ? round(speech.speechSec) : 0, method: speech?.method ?? null }, limit: { has_audio: true, min_speech_sec: CONSENT_LIMITS.minSpeechSec } },
      'ConsentVideoError',
      !probe.hasAudio || !audio ? 'The consent video has no sound: record the statement spoken aloud' : 'No speech was found in the consent video\'s sound',
    );

    // 3. Exactly one face in nearly all frames, facing the camera.
    // The probe's duration: sample() would probe the file again without it.
    const frames = await deps.faces.sample(video, { count: CONSENT_LIMITS.frames, toSec: probe.durationSec, signal });
    const single = frames.filter((f) => f.faces.length === 1);
    const several = frames.filter((f) => f.faces.length > 1).length;
    const none = frames.filter((f) => f.faces.length === 0).length;
    const oneShare = single.length / Math.max(1, frames.length);
    await check(
      { check: 'one_face', passed: oneShare >= CONSENT_LIMITS.oneFaceShare, measured: { frames: frames.length, one_face: single.length, no_face: none, several_faces: several, share: round(oneShare) }, limit: { min_share: CONSENT_LIMITS.oneFaceShare } },
      'ConsentFaceError',
      several > none
        ? `More than one face is visible in ${several} of ${frames.length} sampled frames: the consent video must show only the person giving consent`
        : `Exactly one face must be visible in nearly all of the video; it was in ${single.length} of ${frames.length} sampled frames (no face in ${none})`,
    );
    const facing = single.filter((f) => isFacing(f.faces[0]!));
    const facingShare = facing.length / Math.max(1, single.length);
    const yaw = median(single.map((f) => Math.abs(f.faces[0]!.yaw)));
    const pitch = median(single.map((f) => Math.abs(f.faces[0]!.pitch)));
    await check(
      { check: 'facing_camera', passed: facingShare >= CONSENT_LIMITS.facingShare, measured: { share: round(facingShare), median_abs_yaw: round(yaw, 1), median_abs_pitch: round(pitch, 1) }, limit: { min_share: CONSENT_LIMITS.facingShare, max_abs_yaw: FACING.maxYaw, max_abs_pitch: FACING.maxPitch } },
      'ConsentFaceError',
      `The face must look at the camera: it did in ${facing.length} of ${single.length} frames (median turn ${yaw.toFixed(0)} degrees, tilt ${pitch.toFixed(0)} degrees)`,
    );
    const best = facing.reduce((a, b) => (b.faces[0]!.score > a.faces[0]!.score ? b : a), facing[0]!);
    details.thumbnailKey = `consents/${id}/thumbnail.jpg`;
    await deps.media.putFile(userId, details.thumbnailKey, await stillOf(video, best.timeSec, workDir, 'thumbnail.jpg', 256), 'image/jpeg');
    details.facesKey = `consents/${id}/faces.json`;
    const stored: StoredFaces = { frames: single.map((f) => ({ ...f, faces: [f.faces[0]!] })) };
    await deps.media.putBytes(userId, details.facesKey, Buffer.from(JSON.stringify(stored)), 'application/json');

    // 4. Speech of a plausible length for the statement.
    const statement = spokenStatement(details.text, details.name!);
    const length = plausibleSpeechLength(statement, speech!.speechSec, lang.name);
    await check(
      { check: 'speech_length', passed: length.plausible, measured: { speech_sec: round(speech!.speechSec) }, limit: { expected_sec: length.expectedSec.map((s) => round(s, 1)) } },
      'ConsentTextSimilarityError',
      `The speech is ${speech!.speechSec.toFixed(1)} s long; reading the statement takes about ${length.expectedSec[0].toFixed(0)} to ${length.expectedSec[1].toFixed(0)} s`,
    );

    // 5. The words: recognised and matched, or (no recogniser for the language) an operator's review.
    const recogniser = deps.recognisers.find((r) => r.languages.includes(lang.name));
    if (!recogniser) {
      details.review = { state: 'pending', reason: `No offline speech recogniser for ${lang.name} here: the speech length was checked; an operator must watch the video and confirm the words, the name and the passcode` };
      await record({ check: 'words', passed: false, measured: { recogniser: null }, limit: { review: 'operator' }, note: 'waiting for an operator review (mimic consents review)' });
      deps.log.info('consent waits for a review', { consent_id: id, language: lang.name });
      return;
    }
    // A free transcription, then (a word of the name or passcode missed) a listen for those words in their slots.
    const heardWords = await listenToConsent(recogniser, wav, { statement, name: details.name!, passcode: details.passcode }, lang, signal);
    const { match, transcript, misses } = heardWords;
    // Misses: each word of the name and of the passcode not heard. None passes; exactly one (a
    // recognition slip is likelier than a wrong statement that still matches) goes to a person.
    const heard = match.similarity >= MATCH_LIMITS.similarity;
    const missing = missedWords(details.name!, details.passcode, heardWords);
    const step: VerificationStep = {
      check: 'words', passed: heard && misses === 0,
      measured: {
        recogniser: recogniser.name, similarity: round(match.similarity), name_found: heardWords.nameWordsFound, passcode_found: heardWords.passcodeFound, misses, transcript, details: match.details,
        ...(heardWords.listened !== null ? { listened: heardWords.listened, transcript_name_found: match.nameWordsFound, transcript_passcode_found: match.passcodeFound } : {}),
      },
      limit: { similarity: MATCH_LIMITS.similarity, misses: 0, review_when_misses: 1 },
    };
    if (heard && misses === 1) {
      step.note = 'one word not heard: waiting for an operator review (mimic consents review)';
      details.review = { state: 'pending', reason: `The recogniser did not hear ${missing.join(' and ')}; everything else matched (${Math.round(match.similarity * 100)} % of the statement): an operator must watch the video` };
      await record(step);
      deps.log.info('consent waits for a review', { consent_id: id, language: lang.name });
      return;
    }
    await check(
      step,
      'ConsentTextSimilarityError',
      `The spoken words do not match the consent statement${missing.length ? ` (${missing.join(' and ')} not heard)` : ''}: ${Math.round(match.similarity * 100)} % of its words were recognised`,
    );
    await deps.lifecycle.finish(id, { verifiedAt: deps.clock.now() });
  } catch (err) {
    if (err instanceof CheckFailure) {
      deps.log.info('consent not verified', { consent_id: id, kind: err.kind });
      await deps.lifecycle.fail(id, err.kind, err.description);
      return;
    }
    throw err;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}


const quoted = (words: readonly string[]): string => words.map((w) => `'${w}'`).join(', ');

/**
 * What was not heard, naming the words: "'Lopez' of the name 'Maria Lopez'" when only the
 * surname was missed, "the name 'Maria Lopez'" when all of it was, "the passcode word 'river'".
 */
export function missedWords(name: string, passcode: readonly string[], match: Pick<ConsentMatch, 'nameWordsFound' | 'passcodeFound'>): string[] {
  // The matcher's words of the name (wordsOf), in the case the person typed.
  const nameWords = name.normalize('NFC').match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? [];
  const nameMissed = nameWords.filter((_, i) => match.nameWordsFound[i] === false);
  const codeMissed = passcode.filter((_, i) => match.passcodeFound[i] === false);
  const out: string[] = [];
  if (nameMissed.length > 0 && nameMissed.length === nameWords.length) out.push(`the name '${name}'`);
  else if (nameMissed.length > 0) out.push(`${quoted(nameMissed)} of the name '${name}'`);
  if (codeMissed.length > 0) out.push(`the passcode word${codeMissed.length > 1 ? 's' : ''} ${quoted(codeMissed)}`);
  return out;
}
