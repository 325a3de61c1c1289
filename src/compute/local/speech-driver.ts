/**
 * The speech driver: a face that speaks an audio file. The audio is decoded once (ffmpeg,
 * any format) for its loudness per frame; the mouth follows the phoneme cues when there are
 * some, else the sound itself (formants, voicing and closures read from the audio,
 * `audio-visemes.ts`); idle motion comes from `speakingMotion`.
 */
import { RenderError } from '../../errors.ts';
import type { SpeechCue } from '../interface.ts';
import { runFfmpeg } from './ffmpeg.ts';
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

export async function speechMotion(driver: { audioPath: string; cues: SpeechCue[]; seed: string }): Promise<MotionTrack> {
  const pcm = await decodeSpeech(driver.audioPath);
  const loudness = mouthFromAudio(pcm, BANK_FPS);
  if (loudness.length === 0) throw new RenderError('DriverError', 'the speech audio is shorter than one frame');
  const speech = driver.cues.length > 0 ? mouthFromCues(driver.cues, loudness.length, BANK_FPS, loudness) : mouthFromSpeech(pcm, loudness.length, BANK_FPS);
  return { fps: BANK_FPS, frames: speakingMotion(driver.seed, BANK_FPS, speech, loudness) };
}
