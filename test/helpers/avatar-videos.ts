/**
 * Videos for the consent and avatar tests (issue 11, point 3.2) and for a new user who has no
 * camera (point 3.1), made by the project itself: an embedded voice (Flite for English, which
 * pocketsphinx recognises; espeak-ng for the other languages) speaks a text, and the local
 * renderer makes a presenter picture speak it (mp4: H.264 + AAC, 25 fps).
 *
 * - `consentVideo(opts)`: a picture saying a consent text; variants `ok`, `no-sound` (video
 *   only), `two-faces` (two pictures side by side, both speaking; 1024x512), `no-face` (a
 *   gradient with the speech). Wrong words or a wrong name are just another `text`.
 * - `avatarFootage(opts)`: minutes of one person speaking, then a silent, idle ending. The
 *   speaking part is rendered once (about 17 s) and looped; the ending is a still picture of
 *   the same face with digital silence. Variants `ok` (5.5 min, 40 s silent ending), `short`
 *   (4 min), `talking-to-the-end` (no silent ending), `moving-ending` (the ending pans, zooms
 *   and shakes), `other-person` (mehmet instead of grace).
 *
 * Both cache their result under `os.tmpdir()/mimic-test-videos/`, the file named by a hash of
 * the options, the pictures' bytes and GENERATOR_VERSION; a result is written under a
 * temporary name and renamed, so concurrent test processes never read a half-written file and
 * reuse each other's results. Footage variants with the same picture share one cached
 * speaking part (`makeSpeakingPart`), so only the first of them renders. `makeConsentVideo` / `makeAvatarFootage` write to a given path,
 * uncached (the scripts in scripts/ use them). How and why: docs/test-videos.md.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import type { SpeechCue } from '../../src/compute/interface.ts';
import { createLocalBackend } from '../../src/compute/local/index.ts';
import { runFfmpeg } from '../../src/media/ffmpeg.ts';
import { int16Wav } from '../../src/speaking/speech.ts';
import { createEspeakProvider } from '../../src/voices/espeak/index.ts';
import { createFliteProvider } from '../../src/voices/flite/index.ts';
import { VoicePool } from '../../src/voices/pool.ts';

/** Bump when the generator's output changes, so cached files from an older one are not reused. */
export const GENERATOR_VERSION = 5;

export const ASSETS = resolve(import.meta.dirname, '../../assets');
export const PICTURES = {
  eileen: join(ASSETS, 'presenters/eileen.jpg'),
  grace: join(ASSETS, 'presenters/grace.jpg'),
  ernst: join(ASSETS, 'presenters/ernst.jpg'),
  mehmet: join(ASSETS, 'presenters/mehmet.jpg'),
} as const;

/**
 * The person of the consent videos and the footage by default: Grace, whose own mouth is
 * closed (inner-lip gap 1.6 % of the mouth's width in the face mesh), so the still ending of
 * the footage shows a closed mouth. Eileen smiles with her teeth showing (gap 19 %): the
 * renderer never closes a mouth beyond the picture's own, so footage of her could not end
 * with a closed mouth. `other-person` footage shows Mehmet (closed mouth, 3 %, about frontal).
 */
export const DEFAULT_PICTURE = PICTURES.grace;
export const OTHER_PERSON_PICTURE = PICTURES.mehmet;

/** The folder the cached videos live in. */
export const CACHE_DIR = join(tmpdir(), 'mimic-test-videos');

const FPS = 25;
const FRAME_MS = 1000 / FPS;

/**
 * The voice each consent language is read with: Flite for English (pocketsphinx does not
 * recognise espeak speech), espeak-ng's voice for the others; Filipino has none in espeak-ng
 * 1.52 and is read by the Indonesian one (a related language: it sounds foreign).
 */
export const CONSENT_VOICES: Readonly<Record<string, string>> = {
  english: 'en-US-flite-slt', dutch: 'nl-NL-espeak-female', turkish: 'tr-TR-espeak-female', swedish: 'sv-SE-espeak-female',
  indonesian: 'id-ID-espeak-female', filipino: 'id-ID-espeak-female', czech: 'cs-CZ-espeak-female', romanian: 'ro-RO-espeak-female',
  danish: 'da-DK-espeak-female', malay: 'ms-MY-espeak-female', slovak: 'sk-SK-espeak-female', croatian: 'hr-HR-espeak-female',
  polish: 'pl-PL-espeak-female', german: 'de-DE-espeak-female', spanish: 'es-ES-espeak-female', french: 'fr-FR-espeak-female',
  italian: 'it-IT-espeak-female', portuguese: 'pt-PT-espeak-female',
};

export type ConsentVariant = 'ok' | 'no-sound' | 'two-faces' | 'no-face';

export interface ConsentVideoOptions {
  /** What is said: the consent text with the name in place of `[user name]` (or wrong words, a wrong name). */
  text: string;
  /** A consent language's lower-case English name; picks the voice (default english). */
  language?: string;
  /** A voice id of the embedded catalogue (docs/voices.md); default: the language's. */
  voice?: string;
  /** The face (default DEFAULT_PICTURE, grace). */
  picture?: string;
  /** The second face of `two-faces` (default eileen). */
  secondPicture?: string;
  variant?: ConsentVariant;
}

export type FootageVariant = 'ok' | 'short' | 'talking-to-the-end' | 'moving-ending' | 'other-person';

export interface AvatarFootageOptions {
  variant?: FootageVariant;
  /** The face (default DEFAULT_PICTURE, grace; `other-person`: OTHER_PERSON_PICTURE, mehmet). */
  picture?: string;
  /** Total length (default 5.5; `short`: 4). */
  minutes?: number;
  /** Seconds of silent idle ending (default 40; `talking-to-the-end`: 0). */
  silentEnding?: number;
  /** What is spoken (looped): English, spoken by a Flite voice. */
  text?: string;
  /** A Flite voice id (default en-US-flite-slt). */
  voice?: string;
}

/** The paragraph the footage speaks (about 17 s with en-US-flite-slt), looped to length. */
export const FOOTAGE_TEXT =
  'Hello, and thank you for watching. Today I will talk about the weather in the mountains, ' +
  'where the mornings are cold and clear, and the afternoons bring clouds from the west. ' +
  'Pack a warm coat, plenty of water, and a good map before you start walking.';

// ---------------------------------------------------------------------------------------------
// Speech

interface SpokenWav {
  path: string;
  cues: SpeechCue[];
  /** Length of the WAV, a whole number of frames. */
  seconds: number;
}

/**
 * Speaks `text` with the embedded voice `voiceId` into `path`, with `leadMs` of silence before
 * and at least `tailMs` after, padded to a whole number of video frames (so a render of it and
 * the WAV have the same length and loop together).
 */
async function speak(text: string, voiceId: string, path: string, leadMs: number, tailMs: number): Promise<SpokenWav> {
  const pool = new VoicePool();
  try {
    const provider = voiceId.includes('-flite-') ? createFliteProvider({ pool }) : createEspeakProvider({ pool });
    const speech = await provider.synthesize({ text, voiceId });
    if (speech.pcm.length === 0) throw new Error(`the voice ${voiceId} produced no sound for this text`);
    const rate = speech.sampleRate;
    const lead = Math.round((leadMs / 1000) * rate);
    const frames = Math.ceil(((speech.pcm.length + lead) / rate) * 1000 / FRAME_MS + tailMs / FRAME_MS);
    const total = Math.round((frames * FRAME_MS / 1000) * rate);
    const pcm = new Int16Array(total);
    pcm.set(speech.pcm, lead);
    await writeFile(path, int16Wav(pcm, rate));
    const cues = speech.phonemes.map((p) => ({ phoneme: p.phoneme, alphabet: p.alphabet, startMs: p.startMs + leadMs, endMs: p.endMs + leadMs }));
    return { path, cues, seconds: frames / FPS };
  } finally {
    await pool.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Pictures and renders

async function ffmpeg(args: string[], what: string): Promise<void> {
  const r = await runFfmpeg(['-v', 'error', '-y', ...args], { timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`ffmpeg (${what}) failed with ${r.code}: ${r.stderr.slice(-2000)}`);
}

/** How many video frames `path` holds (its packets counted, nothing decoded). */
async function frameCount(path: string): Promise<number> {
  const r = await runFfmpeg(['-i', path, '-map', '0:v', '-c', 'copy', '-f', 'null', '-']);
  const counts = [...r.stderr.matchAll(/frame=\s*(\d+)/g)];
  if (r.code !== 0 || counts.length === 0) throw new Error(`cannot count the frames of ${path}: ${r.stderr.slice(-500)}`);
  return Number(counts[counts.length - 1]![1]);
}

/** A 512x512 picture with no face: a diagonal gradient, blue to orange. */
async function facelessPicture(path: string): Promise<void> {
  const side = 512;
  const data = Buffer.alloc(side * side * 3);
  for (let y = 0; y < side; y++) {
    for (let x = 0; x < side; x++) {
      const t = (x + y) / (2 * side - 2), i = (y * side + x) * 3;
      data[i] = Math.round(40 + 200 * t);
      data[i + 1] = Math.round(90 + 60 * t);
      data[i + 2] = Math.round(200 - 160 * t);
    }
  }
  await sharp(data, { raw: { width: side, height: side, channels: 3 } }).png().toFile(path);
}

/** Two pictures, each scaled to 512x512, side by side: 1024x512. */
async function sideBySide(left: string, right: string, path: string): Promise<void> {
  const [a, b] = await Promise.all([left, right].map((p) => sharp(p).resize(512, 512, { fit: 'cover' }).png().toBuffer()));
  await sharp({ create: { width: 1024, height: 512, channels: 3, background: '#000000' } })
    .composite([{ input: a!, left: 0, top: 0 }, { input: b!, left: 512, top: 0 }])
    .png()
    .toFile(path);
}

/** A picture as a 512x512 PNG (what the renderer and the still ending use). */
async function square(picture: string, path: string): Promise<void> {
  await sharp(picture).resize(512, 512, { fit: 'cover' }).png().toFile(path);
}

/** The whole picture speaking `speech` (every face in it, up to `faces`), an mp4 at 25 fps. */
async function renderSpeaking(picture: string, speech: SpokenWav, out: string, workDir: string, opts: { mute: boolean; faces: number }): Promise<void> {
  const backend = createLocalBackend();
  try {
    await backend.run('animation.render', {
      jobId: `test-video-${randomBytes(4).toString('hex')}`,
      sourcePath: picture,
      driver: { kind: 'speech', audioPath: speech.path, cues: speech.cues, seed: 'test-videos' },
      resultFormat: 'mp4',
      mute: opts.mute,
      stitch: true,
      maxAnimatedFaces: opts.faces,
      logo: { kind: 'none' },
      outputPath: out,
      workDir,
      signal: new AbortController().signal,
    });
  } finally {
    await backend.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Consent videos

/** Writes a consent video to `out` (not cached). */
export async function makeConsentVideo(opts: ConsentVideoOptions, out: string): Promise<void> {
  const variant = opts.variant ?? 'ok';
  const language = (opts.language ?? 'english').toLowerCase();
  const voice = opts.voice ?? CONSENT_VOICES[language];
  if (!voice) throw new Error(`no voice for the language '${language}' (one of: ${Object.keys(CONSENT_VOICES).join(', ')})`);
  const picture = opts.picture ?? DEFAULT_PICTURE;
  const work = await mkdtemp(join(tmpdir(), 'mimic-consent-video-'));
  try {
    const speech = await speak(opts.text, voice, join(work, 'speech.wav'), 500, 700);
    if (variant === 'no-face') {
      const still = join(work, 'gradient.png');
      await facelessPicture(still);
      await ffmpeg([
        '-loop', '1', '-framerate', String(FPS), '-i', still, '-i', speech.path,
        '-t', String(speech.seconds), '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-r', String(FPS),
        '-c:a', 'aac', '-b:a', '96k', '-movflags', '+faststart', out,
      ], 'no-face consent');
      return;
    }
    let source = join(work, 'picture.png');
    if (variant === 'two-faces') await sideBySide(picture, opts.secondPicture ?? PICTURES.eileen, source);
    else await square(picture, source);
    await renderSpeaking(source, speech, out, work, { mute: variant === 'no-sound', faces: variant === 'two-faces' ? 2 : 1 });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Avatar footage

interface FootagePlan {
  picture: string;
  totalSec: number;
  silentSec: number;
  moving: boolean;
  text: string;
  voice: string;
}

function planOf(opts: AvatarFootageOptions): FootagePlan {
  const variant = opts.variant ?? 'ok';
  const minutes = opts.minutes ?? (variant === 'short' ? 4 : 5.5);
  const silentSec = opts.silentEnding ?? (variant === 'talking-to-the-end' ? 0 : 40);
  const totalSec = Math.round(minutes * 60 * FPS) / FPS;
  if (!(totalSec > silentSec + 1)) throw new Error(`footage of ${minutes} min cannot hold a ${silentSec} s silent ending and speech`);
  return {
    picture: opts.picture ?? (variant === 'other-person' ? OTHER_PERSON_PICTURE : DEFAULT_PICTURE),
    totalSec,
    silentSec: Math.round(silentSec * FPS) / FPS,
    moving: variant === 'moving-ending',
    text: opts.text ?? FOOTAGE_TEXT,
    voice: opts.voice ?? 'en-US-flite-slt',
  };
}

/**
 * Concat-demuxer lines that play `segment` (`segmentFrames` long) over and over for `frames`
 * frames: whole copies, then the first frames of it encoded to `restPath` (an outpoint on a
 * copied stream would keep frames past it).
 */
async function looped(segment: string, segmentFrames: number, frames: number, restPath: string): Promise<string[]> {
  const lines: string[] = Array(Math.floor(frames / segmentFrames)).fill(`file '${segment}'`);
  const rest = frames % segmentFrames;
  if (rest > 0) {
    await ffmpeg(['-i', segment, '-frames:v', String(rest), ...X264, restPath], 'partial segment');
    lines.push(`file '${restPath}'`);
  }
  return lines;
}

const X264 = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '26', '-bf', '0', '-pix_fmt', 'yuv420p', '-r', String(FPS), '-g', String(FPS * 2)];

/** What the footage loops: the picture speaking the text once. */
export interface SpeakingPartOptions {
  picture: string;
  text: string;
  voice: string;
}

/**
 * Writes the speaking part of footage to `out` (a mov: H.264 with the footage's encoder
 * settings, and the speech as 16-bit PCM, both exactly a whole number of frames long, so the
 * two loop together without drifting).
 */
export async function makeSpeakingPart(opts: SpeakingPartOptions, out: string): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'mimic-speaking-part-'));
  try {
    const source = join(work, 'picture.png');
    await square(opts.picture, source);
    const speech = await speak(opts.text, opts.voice, join(work, 'speech.wav'), 0, 400);
    const rendered = join(work, 'rendered.mp4');
    await renderSpeaking(source, speech, rendered, work, { mute: true, faces: 1 });
    const frames = Math.round(speech.seconds * FPS);
    await ffmpeg([
      '-i', rendered, '-i', speech.path, '-map', '0:v', '-map', '1:a',
      '-vf', `fps=${FPS},tpad=stop=-1:stop_mode=clone`, '-frames:v', String(frames), ...X264,
      '-c:a', 'pcm_s16le', '-f', 'mov', out,
    ], 'speaking part');
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Writes avatar footage to `out`. `speakingPart` is a file of `makeSpeakingPart` for the
 * footage's picture, text and voice (the cached path passes a cached one); without it the part
 * is made here. Its video is copied as one segment per loop, the last, partial loop and the
 * ending encoded with the same settings, so the video is the segments concatenated without
 * re-encoding; the audio is the part's speech looped to the same length, then digital silence.
 */
export async function makeAvatarFootage(opts: AvatarFootageOptions, out: string, speakingPart?: string): Promise<void> {
  const plan = planOf(opts);
  const work = await mkdtemp(join(tmpdir(), 'mimic-avatar-footage-'));
  try {
    const source = join(work, 'picture.png');
    await square(plan.picture, source);
    const part = speakingPart ?? join(work, 'speaking.mov');
    if (!speakingPart) await makeSpeakingPart({ picture: plan.picture, text: plan.text, voice: plan.voice }, part);
    const segment = join(work, 'speaking.mp4');
    await ffmpeg(['-i', part, '-map', '0:v', '-c', 'copy', segment], 'speaking segment');
    const segmentFrames = await frameCount(segment);

    const speakingSec = plan.totalSec - plan.silentSec;
    const list = await looped(segment, segmentFrames, Math.round(speakingSec * FPS), join(work, 'speaking-rest.mp4'));
    if (plan.silentSec > 0) {
      // The ending: the picture itself (its own mouth, at rest), still or moving, no sound; one
      // piece (pieces looped would flicker where each copy's first frame starts afresh). The
      // picture is decoded once and repeated by the loop filter.
      const ending = join(work, 'ending.mp4');
      // Moving: zoomed 1.25x, panning about ±55 px and shaking ±5 px, every frame different (the face stays in view).
      const moving = ',scale=640:640,crop=512:512:' +
        "x='64+56*sin(2*PI*t/6)+5*sin(2*PI*t*3.1)':y='64+48*sin(2*PI*t/4+1)+5*sin(2*PI*t*2.7)'";
      await ffmpeg([
        '-i', source, '-vf', `loop=loop=-1:size=1:start=0,setpts=N/${FPS}/TB${plan.moving ? moving : ''}`,
        '-frames:v', String(Math.round(plan.silentSec * FPS)), ...X264, ending,
      ], 'ending');
      list.push(`file '${ending}'`);
    }
    const listPath = join(work, 'list.txt');
    await writeFile(listPath, list.join('\n') + '\n');
    const rate = 16_000;
    const audio = `[1:a]aresample=${rate},atrim=0:${speakingSec.toFixed(3)},apad=whole_len=${Math.round(plan.totalSec * rate)}[a]`;
    await ffmpeg([
      '-f', 'concat', '-safe', '0', '-i', listPath,
      '-stream_loop', '-1', '-i', part,
      '-filter_complex', audio, '-map', '0:v', '-map', '[a]',
      '-c:v', 'copy', '-c:a', 'aac', '-b:a', '64k', '-ac', '1', '-t', plan.totalSec.toFixed(3), '-movflags', '+faststart', out,
    ], 'footage');
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// The cache

const pending = new Map<string, Promise<string>>();

async function fileExists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).size > 0;
  } catch {
    return false;
  }
}

/** The cached file for `key` (an object of options, pictures already read), made by `make` when missing. */
async function cached(kind: string, key: Record<string, unknown>, pictures: string[], make: (out: string) => Promise<void>, ext = 'mp4'): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify({ kind, version: GENERATOR_VERSION, key }));
  for (const p of pictures) hash.update(await readFile(p));
  const path = join(CACHE_DIR, `${kind}-${hash.digest('hex').slice(0, 24)}.${ext}`);
  const running = pending.get(path);
  if (running) return running;
  const made = (async () => {
    if (await fileExists(path)) return path;
    await mkdir(CACHE_DIR, { recursive: true });
    // Another process may be making the same file: each writes its own and renames it in place (atomic).
    const temp = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.part.${ext}`;
    try {
      await make(temp);
      await rename(temp, path);
    } finally {
      await rm(temp, { force: true });
    }
    return path;
  })();
  pending.set(path, made);
  made.catch(() => pending.delete(path));
  return made;
}

/** The path of a consent video (made once, then cached; see the module's comment). */
export function consentVideo(opts: ConsentVideoOptions): Promise<string> {
  const variant = opts.variant ?? 'ok';
  const picture = opts.picture ?? DEFAULT_PICTURE;
  const pictures = variant === 'no-face' ? [] : variant === 'two-faces' ? [picture, opts.secondPicture ?? PICTURES.eileen] : [picture];
  const language = (opts.language ?? 'english').toLowerCase();
  const key = { text: opts.text, voice: opts.voice ?? CONSENT_VOICES[language] ?? language, variant };
  return cached('consent', key, pictures, (out) => makeConsentVideo(opts, out));
}

/** The path of avatar footage (made once, then cached; see the module's comment). */
export function avatarFootage(opts: AvatarFootageOptions = {}): Promise<string> {
  const plan = planOf(opts);
  const { picture, ...key } = plan;
  // The variants with the same picture, text and voice share one rendered speaking part.
  const part = { picture, text: plan.text, voice: plan.voice };
  return cached('footage', key, [picture], async (out) => {
    const speaking = await cached('speaking', { text: part.text, voice: part.voice }, [picture], (o) => makeSpeakingPart(part, o), 'mov');
    await makeAvatarFootage(opts, out, speaking);
  });
}

// ---------------------------------------------------------------------------------------------
// A camera and a microphone for Chromium

export interface FakeCaptureFiles {
  /** Raw frames for `--use-file-for-fake-video-capture`. */
  video: string;
  /** 16-bit PCM for `--use-file-for-fake-audio-capture`. */
  audio: string;
  /** Seconds of the video (and of the WAV) before the padding. */
  seconds: number;
}

/**
 * A video as Chromium's fake camera and microphone play it (studio browser tests): a .y4m
 * (320x320, 15 fps: Chromium reads raw frames only) and a 48 kHz mono .wav, both `leadSec` of
 * the first frame and silence, the video, then `tailSec` of the last frame and silence. Chromium
 * plays both from the moment a page starts capturing and loops them; the lead covers the
 * page's countdown, the tail keeps the loop out of a take.
 */
export async function fakeCaptureFiles(video: string, dir: string, { leadSec, tailSec }: { leadSec: number; tailSec: number }): Promise<FakeCaptureFiles> {
  const probe = await runFfmpeg(['-i', video]);
  const m = /Duration: (\d+):(\d+):([\d.]+)/.exec(probe.stderr);
  if (!m) throw new Error(`cannot read the duration of ${video}`);
  const seconds = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  const total = (leadSec + seconds + tailSec).toFixed(3);
  const files = { video: join(dir, 'camera.y4m'), audio: join(dir, 'microphone.wav'), seconds };
  await ffmpeg([
    '-i', video, '-an',
    '-vf', `fps=15,scale=320:320,tpad=start_duration=${leadSec}:start_mode=clone:stop_duration=${tailSec + 1}:stop_mode=clone`,
    '-t', total, '-pix_fmt', 'yuv420p', '-f', 'yuv4mpegpipe', files.video,
  ], 'fake camera');
  await ffmpeg([
    '-i', video, '-vn',
    '-af', `aresample=48000,aformat=channel_layouts=mono,adelay=${Math.round(leadSec * 1000)},apad`,
    '-t', total, '-ac', '1', '-ar', '48000', '-c:a', 'pcm_s16le', files.audio,
  ], 'fake microphone');
  return files;
}
