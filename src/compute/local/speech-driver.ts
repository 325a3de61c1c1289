/**
 * The speech driver: a face that speaks an audio file. The audio is decoded once (ffmpeg,
 * any format) for its loudness per frame; the mouth follows the phoneme cues when there are
 * some, else the sound itself (formants, voicing and closures read from the audio,
 * `audio-visemes.ts`); idle motion comes from `speakingMotion`.
 */
import { RenderError } from '../../errors.ts';
import type { SpeechCue } from '../interface.ts';
import { runFfmpeg } from '../../media/ffmpeg.ts';
import { BANK_FPS, speakingMotion, type MotionTrack } from './motion.ts';
import { mouthFromAudio, type Pcm } from './song.ts';
import { mouthFromCues } from './visemes.ts';
import { mouthFromSpeech } from './audio-visemes.ts';

/** Speech decoded for analysis: mono, 16 kHz, floats. */
export async function decodeSpeech(audioPath: string): Promise<Pcm> {
  const { code, stdout, stderr } = await runFfmpeg(['-v', 'error', '-i', audioPath, '-map', '0:a:0', '-ac', '1', '-ar', '16000', '-f', 'f32le', '-'], { timeoutMs: 120_000 });
  if (code !== 0 || stdout.length < 4) throw new RenderError('DriverError', `the speech audio cannot be decoded${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`);
  const samples = new Float32Array(stdout.buffer.slice(stdout.byteOffset, stdout.byteOffset + stdout.length - (stdout.length % 4)));
  return { sampleRate: 16_000, samples };
}

/** Mouth shapes and loudness per frame at `fps` for speech `pcm` (the cues' visemes, or read from the sound). */
export function speechMouth(pcm: Pcm, cues: readonly SpeechCue[], fps: number): { mouth: number[]; round: number[]; loudness: number[] } {
  const loudness = mouthFromAudio(pcm, fps);
  const speech = cues.length > 0 ? mouthFromCues(cues, loudness.length, fps, loudness) : mouthFromSpeech(pcm, loudness.length, fps);
  return { ...speech, loudness };
}

export async function speechMotion(driver: { audioPath: string; cues: SpeechCue[]; seed: string }): Promise<MotionTrack> {
  const pcm = await decodeSpeech(driver.audioPath);
  const { loudness, ...speech } = speechMouth(pcm, driver.cues, BANK_FPS);
  if (loudness.length === 0) throw new RenderError('DriverError', 'the speech audio is shorter than one frame');
  return { fps: BANK_FPS, frames: speakingMotion(driver.seed, BANK_FPS, speech, loudness) };
}
