/**
 * The sound of a video as the speech checks want it: 16 kHz, mono, signed 16-bit WAV (what
 * Silero VAD and pocketsphinx's en-us model take), decoded with the bundled ffmpeg.
 */
import { open } from 'node:fs/promises';
import { parseProbe, runFfmpeg } from '../media/ffmpeg.ts';

export const SPEECH_SAMPLE_RATE = 16_000;

/** Decoding a 5-minute upload takes seconds; a stuck decoder is killed after this. */
const DECODE_TIMEOUT_MS = 300_000;

/** 16 kHz mono s16le WAV of [fromSec, toSec) (default whole) of the video's first audio stream; null when it has none. */
export async function extractAudio(
  videoPath: string,
  wavPath: string,
  opts: { fromSec?: number; toSec?: number; signal?: AbortSignal } = {},
): Promise<{ durationSec: number } | null> {
  const { signal } = opts;
  const info = parseProbe((await runFfmpeg(['-i', videoPath], { timeoutMs: 30_000, signal })).stderr);
  if (!info.audio) return null;
  const from = Math.max(0, opts.fromSec ?? 0);
  const range = [...(from > 0 ? ['-ss', from.toFixed(3)] : []), ...(opts.toSec !== undefined ? ['-t', Math.max(0, opts.toSec - from).toFixed(3)] : [])];
  const r = await runFfmpeg(
    ['-loglevel', 'error', '-y', ...range, '-i', videoPath, '-map', '0:a:0', '-vn', '-ac', '1', '-ar', String(SPEECH_SAMPLE_RATE),
      '-c:a', 'pcm_s16le', '-map_metadata', '-1', '-bitexact', '-f', 'wav', wavPath],
    { timeoutMs: DECODE_TIMEOUT_MS, signal },
  );
  if (r.code !== 0) throw new Error(`ffmpeg could not decode the sound of ${videoPath}: ${r.stderr.trim().split('\n').at(-1) ?? `exit ${r.code}`}`);
  return { durationSec: (await wavDataBytes(wavPath)) / (2 * SPEECH_SAMPLE_RATE) };
}

/** The size of the `data` chunk of a WAV file (walks the RIFF chunks from the header). */
async function wavDataBytes(wavPath: string): Promise<number> {
  const file = await open(wavPath, 'r');
  try {
    const size = (await file.stat()).size;
    const head = Buffer.alloc(8);
    for (let at = 12; at + 8 <= size;) {
      await file.read(head, 0, 8, at);
      const id = head.toString('latin1', 0, 4);
      const length = head.readUInt32LE(4);
      // ffmpeg writes 0 or 0xFFFFFFFF when it could not seek back: the data runs to the end.
      if (id === 'data') return length === 0 || at + 8 + length > size ? size - at - 8 : length;
      at += 8 + length + (length % 2);
    }
    return 0;
  } finally {
    await file.close();
  }
}
