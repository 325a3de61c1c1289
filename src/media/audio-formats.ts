/** The audio formats a script may speak (the hosted service's list), told apart by their first bytes. */
export const AUDIO_FORMATS: { ext: string; type: string; test: (b: Buffer) => boolean }[] = [
  { ext: 'wav', type: 'audio/wav', test: (b) => b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WAVE' },
  { ext: 'flac', type: 'audio/flac', test: (b) => b.toString('latin1', 0, 4) === 'fLaC' },
  // ISO media: 'ftyp' at byte 4; an M4A brand is audio, anything else an mp4 that must carry audio.
  { ext: 'm4a', type: 'audio/mp4', test: (b) => b.toString('latin1', 4, 8) === 'ftyp' && /^M4[AB] /.test(b.toString('latin1', 8, 12)) },
  { ext: 'mp4', type: 'video/mp4', test: (b) => b.toString('latin1', 4, 8) === 'ftyp' },
  // An ID3 tag, or an MPEG audio frame header (11 sync bits, layer III).
  { ext: 'mp3', type: 'audio/mpeg', test: (b) => b.toString('latin1', 0, 3) === 'ID3' || (b[0] === 0xff && ((b[1] ?? 0) & 0xe6) === 0xe2) },
];
export const AUDIO_EXTENSIONS = AUDIO_FORMATS.map((f) => f.ext);
