/**
 * The cross-check of voice activity: ffmpeg's `silencedetect` (level, not speech). A stretch
 * quieter than -35 dBFS for 2 s or more is silence; everything else counts as sound. -35 dB
 * sits above a quiet room's noise floor (about -50 to -60 dBFS for a phone or webcam
 * microphone) and well below speech (-10 to -25 dBFS); 2 s is longer than any pause between
 * sentences, so the spans are whole stretches of talking. docs/speech-checks.md has the
 * measurements.
 */
import { runFfmpeg } from '../media/ffmpeg.ts';
import { activityOf, type SpeechActivity, type SpeechSpan } from './vad.ts';

export const SILENCE_NOISE_DB = -35;
export const SILENCE_MIN_SEC = 2;

/** The non-silent parts of the first audio stream of `path` (a video or a WAV file). */
export async function detectSound(path: string, signal?: AbortSignal): Promise<SpeechActivity> {
  const r = await runFfmpeg(
    ['-i', path, '-map', '0:a:0', '-vn', '-af', `silencedetect=noise=${SILENCE_NOISE_DB}dB:d=${SILENCE_MIN_SEC}`, '-f', 'null', '-'],
    { timeoutMs: 300_000, signal },
  );
  if (r.code !== 0) throw new Error(`ffmpeg could not read the sound of ${path}: ${r.stderr.trim().split('\n').at(-1) ?? `exit ${r.code}`}`);
  return parseSilences(r.stderr);
}

const seconds = (hms: string): number => {
  const [h, m, s] = hms.split(':').map(Number);
  return h! * 3600 + m! * 60 + s!;
};

/** The activity in the log of `silencedetect`: its silence_start/silence_end lines and the last progress time. */
export function parseSilences(log: string): SpeechActivity {
  const times = [...log.matchAll(/time=(\d+:\d+:\d+(?:\.\d+)?)/g)];
  const declared = /Duration: (\d+:\d+:\d+(?:\.\d+)?)/.exec(log);
  const durationSec = times.length ? seconds(times.at(-1)![1]!) : declared ? seconds(declared[1]!) : 0;
  const silences: SpeechSpan[] = [];
  for (const m of log.matchAll(/silence_(start|end): (-?[\d.]+)/g)) {
    const at = Number(m[2]);
    if (m[1] === 'start') silences.push({ startSec: Math.max(0, at), endSec: durationSec });
    else if (silences.length) silences.at(-1)!.endSec = at;
  }
  const spans: SpeechSpan[] = [];
  let from = 0;
  for (const s of silences) {
    if (s.startSec > from) spans.push({ startSec: from, endSec: s.startSec });
    from = Math.max(from, s.endSec);
  }
  if (durationSec > from) spans.push({ startSec: from, endSec: durationSec });
  return activityOf('silencedetect', spans, durationSec);
}
