import { open } from 'node:fs/promises';
import { SpeechError } from '../interface.ts';

/**
 * The recording a voice is cloned from, read for upload: a WAV or MP3 file no larger than
 * MAX_SAMPLE_BYTES. Its size is checked before it is read, and its format from its first
 * bytes, so a wrong file fails here, clearly, and never reaches the vendor.
 */

/**
 * Largest sample uploaded: 10 MiB. Two minutes of 16-bit mono WAV at 24 kHz is 5.8 MB (at
 * 44.1 kHz, 10.6 MB: too large, so extract speech at 24 kHz or lower, or as MP3).
 */
export const MAX_SAMPLE_BYTES = 10 * 1024 * 1024;

export interface Sample {
  bytes: Buffer;
  format: 'wav' | 'mp3';
  contentType: 'audio/wav' | 'audio/mpeg';
}

const invalid = (why: string) => new SpeechError('invalid-sample', `the voice sample ${why}`);

/** The format from the first bytes: RIFF/WAVE, or MP3 (an ID3 tag or an MPEG audio frame sync). */
export function sampleFormat(head: Buffer): Sample['format'] | undefined {
  if (head.length >= 12 && head.toString('latin1', 0, 4) === 'RIFF' && head.toString('latin1', 8, 12) === 'WAVE') return 'wav';
  if (head.length >= 3 && head.toString('latin1', 0, 3) === 'ID3') return 'mp3';
  // Frame sync (11 bits), MPEG version not reserved, layer III.
  if (head.length >= 2 && head[0] === 0xff && (head[1]! & 0xe0) === 0xe0 && (head[1]! & 0x18) !== 0x08 && (head[1]! & 0x06) === 0x02) return 'mp3';
  return undefined;
}

/** Reads the sample at `path`, or fails with SpeechError('invalid-sample') naming why (never the file's content). */
export async function readSample(path: string, maxBytes = MAX_SAMPLE_BYTES): Promise<Sample> {
  const file = await open(path, 'r').catch((err: NodeJS.ErrnoException) => {
    throw invalid(`cannot be read (${err.code ?? 'error'})`);
  });
  try {
    const { size, isFile } = await file.stat().then((s) => ({ size: s.size, isFile: s.isFile() }));
    if (!isFile) throw invalid('is not a file');
    if (size === 0) throw invalid('is empty');
    if (size > maxBytes) throw invalid(`is ${size} bytes, more than the ${maxBytes} bytes mimic uploads`);
    const bytes = Buffer.alloc(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await file.read(bytes, filled, size - filled, filled);
      if (bytesRead === 0) break; // the file shrank meanwhile: upload what is there
      filled += bytesRead;
    }
    const format = sampleFormat(bytes.subarray(0, filled));
    if (!format) throw invalid('is neither a WAV nor an MP3 file');
    return { bytes: bytes.subarray(0, filled), format, contentType: format === 'wav' ? 'audio/wav' : 'audio/mpeg' };
  } finally {
    await file.close();
  }
}
