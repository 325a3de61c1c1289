/**
 * Speaking clips on this machine (issue 9, point 5), in one run:
 *   1. text to speech: the real-time factor (synthesis time / speech length) of each
 *      embedded engine on the same ~30 s text, through the worker pool, warmed;
 *   2. the render: frames per second and real-time factor of a ~30 s clip at 512x512 on the
 *      local CPU backend (speech driver, sound, logo, the HLS preview written beside it), and
 *      its lip sync measured on the file (audio-visual offset, correlation, and the closure on
 *      p/b/m: median opening at the bilabials' deepest frames and at the open vowels' widest,
 *      their ratio, the share of p/b/m that close; see docs/lipsync.md);
 *   2a. the same speech rendered as an audio script (the WAV without its phoneme timings, the
 *       mouth read from the sound), with the same lip-sync figures against the true timings,
 *       and the time to read the mouth from 5 minutes of speech;
 *   2b. the same render once on each background (colour, picture, transparent webm and mov);
 *   3. the service: from `POST /clips` until `pending_url` first plays (the playlist lists a
 *      segment and that segment downloads), and until `done`.
 *
 *   node --import tsx bench/clips.ts        (BENCH_ROUNDS=3 by default; BENCH_PRESENTER=grace, the
 *                                            built-in presenter the render part uses; BENCH_BACKGROUNDS=0
 *                                            skips the backgrounds: the same clip once on each)
 *
 * Prints medians over rounds and the goals (speech ≤ 0.05x real time, the clip at least real
 * time, pending_url playable within 2 s). Never fails on timing.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { VoicePool } from '../src/voices/pool.ts';
import { createFliteProvider } from '../src/voices/flite/index.ts';
import { createEspeakProvider } from '../src/voices/espeak/index.ts';
import type { VoiceProvider } from '../src/voices/interface.ts';
import { createLocalBackend } from '../src/compute/local/index.ts';
import { FFMPEG_PATH } from '../src/media/ffmpeg.ts';
import type { BackgroundInput, ResultFormat } from '../src/compute/interface.ts';
import { int16Wav } from '../src/speaking/speech.ts';
import { BUILT_IN_PRESENTERS } from '../src/presenters/built-in.ts';
import { bilabialClosure, LIP_SYNC_GOALS, lipSyncMisses, measureLipSync } from '../src/compute/local/lipsync.ts';
import { mouthFromSpeech } from '../src/compute/local/audio-visemes.ts';
import { decodeSpeech } from '../src/compute/local/speech-driver.ts';
import { median } from './stats.ts';
import { NODE_ARGS, freePort, killChildrenOnExit, root, runBench, serviceEnv, sleep, startService, waitForHealth } from './procs.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const TEXT = [
  'Good morning, and thank you for joining us today.',
  'In the next half minute I would like to tell you about a small project that makes still pictures speak.',
  'You write a script, pick a presenter and a voice, and a moment later the presenter says it, with the lips moving in time.',
  'Everything runs on this machine: the voice, the face, and the video.',
  'Maybe the best part is that you can watch the video while it is still being made.',
  'Thank you for listening, and have a wonderful day.',
].join(' ');

const dir = mkdtempSync(join(tmpdir(), 'mimic-bench-clips-'));
killChildrenOnExit(() => rmSync(dir, { recursive: true, force: true }));

async function speech(): Promise<{ wav: string; cues: { phoneme: string; alphabet: 'ipa' | 'arpabet'; startMs: number; endMs: number }[]; seconds: number }> {
  const pool = new VoicePool({ size: 1 });
  const engines: [string, VoiceProvider, string][] = [
    ['flite', createFliteProvider({ pool }), 'en-US-flite-slt'],
    ['espeak', createEspeakProvider({ pool }), 'en-US-espeak-female'],
  ];
  let kept: Awaited<ReturnType<typeof speech>> | undefined;
  try {
    for (const [name, provider, voiceId] of engines) {
      await provider.synthesize({ text: 'Warm up.', voiceId });
      await provider.synthesize({ text: 'Warm up again.', voiceId });
      const rtf: number[] = [];
      let seconds = 0;
      for (let r = 0; r < ROUNDS; r++) {
        const t = performance.now();
        const s = await provider.synthesize({ text: TEXT, voiceId });
        seconds = s.durationMs / 1000;
        rtf.push((performance.now() - t) / s.durationMs);
        if (!kept && name === 'flite') {
          const wav = join(dir, 'speech.wav');
          writeFileSync(wav, int16Wav(s.pcm, s.sampleRate));
          kept = { wav, cues: s.phonemes, seconds };
        }
      }
      console.log(`  speech ${name.padEnd(7)} ${seconds.toFixed(1)} s of speech; RTF ${rtf.map((v) => v.toFixed(4)).join(' ')}, median ${median(rtf).toFixed(4)} (goal ≤ 0.05: ${median(rtf) <= 0.05 ? 'met' : 'misses'})`);
    }
  } finally {
    await pool.close();
  }
  return kept!;
}

async function render(s: Awaited<ReturnType<typeof speech>>): Promise<void> {
  const backend = createLocalBackend();
  const presenter = BUILT_IN_PRESENTERS.find((p) => p.id.startsWith(process.env.BENCH_PRESENTER ?? 'grace')) ?? BUILT_IN_PRESENTERS[0]!;
  const fps: number[] = [];
  const rtf: number[] = [];
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const previewDir = join(dir, `preview-${r}`);
      mkdirSync(previewDir);
      const t = performance.now();
      const res = await backend.run('animation.render', {
        jobId: `bench-${r}`, sourcePath: presenter.image, driver: { kind: 'speech', audioPath: s.wav, cues: s.cues, seed: 'bench' },
        resultFormat: 'mp4', mute: false, stitch: false, maxAnimatedFaces: 1, logo: { kind: 'default' },
        outputPath: join(dir, `clip-${r}.mp4`), previewDir, workDir: dir, signal: new AbortController().signal,
      });
      const sec = (performance.now() - t) / 1000;
      fps.push(res.metadata.num_frames / sec);
      rtf.push(s.seconds / sec);
      if (r === 0) console.log(`  render  ${presenter.name}: ${res.metadata.num_frames} frames at ${res.metadata.resolution.join('x')}`);
    }
  } finally {
    await backend.close();
  }
  await lips('text script', join(dir, 'clip-0.mp4'), s.cues);
  console.log(`  render  fps ${fps.map((v) => v.toFixed(1)).join(' ')}, median ${median(fps).toFixed(1)}; speed ${median(rtf).toFixed(2)}x real time (goal ≥ 1x: ${median(rtf) >= 1 ? 'met' : 'misses'})`);
}

/** Prints the lip sync measured on a rendered clip, judged against the speech's true phoneme timings. */
async function lips(label: string, file: string, cues: Awaited<ReturnType<typeof speech>>['cues']): Promise<void> {
  const sync = await measureLipSync(file);
  const closure = bilabialClosure(sync.mouth, sync.fps, cues);
  const misses = lipSyncMisses(sync, closure);
  console.log(
    `  lips    ${label}: audio-visual offset ${sync.offsetMs.toFixed(1)} ms (goal within ±${LIP_SYNC_GOALS.maxOffsetMs} ms: ${Math.abs(sync.offsetMs) <= LIP_SYNC_GOALS.maxOffsetMs ? 'met' : 'misses'}), correlation ${sync.correlation.toFixed(2)}`,
  );
  console.log(
    `  lips    ${label}: closure on p/b/m: median opening ${closure.bilabial.toFixed(3)} on ${closure.count} p/b/m (deepest frame) vs ${closure.vowel.toFixed(3)} on ${closure.vowels} open vowels (widest frame), ` +
      `ratio ${closure.ratio.toFixed(3)} (goal ≤ ${LIP_SYNC_GOALS.maxClosureRatio}), ${(closure.closedShare * 100).toFixed(0)} % of p/b/m close (goal ≥ ${LIP_SYNC_GOALS.minClosedShare * 100} %): ${misses.length ? `misses (${misses.join('; ')})` : 'met'}`,
  );
}

/**
 * The same speech as an audio script: the WAV alone, without its phoneme timings, so the mouth
 * is read from the sound (audio-visemes.ts); measured against the true timings all the same.
 */
async function audioScript(s: Awaited<ReturnType<typeof speech>>): Promise<void> {
  const backend = createLocalBackend();
  const presenter = BUILT_IN_PRESENTERS.find((p) => p.id.startsWith(process.env.BENCH_PRESENTER ?? 'grace')) ?? BUILT_IN_PRESENTERS[0]!;
  const previewDir = join(dir, 'preview-audio');
  mkdirSync(previewDir);
  const outputPath = join(dir, 'clip-audio.mp4');
  try {
    const t = performance.now();
    const res = await backend.run('animation.render', {
      jobId: 'bench-audio', sourcePath: presenter.image, driver: { kind: 'speech', audioPath: s.wav, cues: [], seed: 'bench' },
      resultFormat: 'mp4', mute: false, stitch: false, maxAnimatedFaces: 1, logo: { kind: 'default' },
      outputPath, previewDir, workDir: dir, signal: new AbortController().signal,
    });
    const sec = (performance.now() - t) / 1000;
    console.log(`  render  audio script (no timings): fps ${(res.metadata.num_frames / sec).toFixed(1)}; speed ${(s.seconds / sec).toFixed(2)}x real time`);
  } finally {
    await backend.close();
  }
  await lips('audio script', outputPath, s.cues);
  // The mouth read from 5 minutes of speech (the longest audio script): the speech repeated.
  const pcm = await decodeSpeech(s.wav);
  const samples = new Float32Array(300 * pcm.sampleRate);
  for (let i = 0; i < samples.length; i += pcm.samples.length) samples.set(pcm.samples.subarray(0, samples.length - i), i);
  const took: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    mouthFromSpeech({ sampleRate: pcm.sampleRate, samples }, 300 * 25, 25);
    took.push((performance.now() - t) / 1000);
  }
  console.log(`  lips    audio script: the mouth read from 5 min of speech in ${took.map((v) => v.toFixed(2)).join(' ')} s, median ${median(took).toFixed(2)} s`);
}

/** The same clip on each background (one round each): what cutting the presenter out costs, and the webm and ProRes encoders. */
async function backgrounds(s: Awaited<ReturnType<typeof speech>>): Promise<void> {
  const backend = createLocalBackend();
  const presenter = BUILT_IN_PRESENTERS.find((p) => p.id.startsWith(process.env.BENCH_PRESENTER ?? 'grace')) ?? BUILT_IN_PRESENTERS[0]!;
  const picture = join(dir, 'background.png');
  execFileSync(FFMPEG_PATH, ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=1280x720', '-frames:v', '1', picture]);
  const cases: [string, ResultFormat, BackgroundInput | undefined][] = [
    ['none (webm)', 'webm', undefined],
    ['colour (mp4)', 'mp4', { kind: 'color', color: '#00b140' }],
    ['picture (mp4)', 'mp4', { kind: 'image', path: picture }],
    ['transparent (webm, VP9 alpha)', 'webm', { kind: 'transparent' }],
    ['transparent (mov, ProRes 4444)', 'mov', { kind: 'transparent' }],
  ];
  try {
    for (const [name, format, background] of cases) {
      const previewDir = join(dir, `preview-bg-${cases.findIndex((c) => c[0] === name)}`);
      mkdirSync(previewDir);
      const outputPath = join(dir, `clip-bg.${format}`);
      const t = performance.now();
      const res = await backend.run('animation.render', {
        jobId: `bench-bg-${name}`, sourcePath: presenter.image, driver: { kind: 'speech', audioPath: s.wav, cues: s.cues, seed: 'bench' },
        resultFormat: format, mute: false, stitch: false, maxAnimatedFaces: 1, logo: { kind: 'default' }, ...(background ? { background } : {}),
        outputPath, previewDir, workDir: dir, signal: new AbortController().signal,
      });
      const sec = (performance.now() - t) / 1000;
      const mib = statSync(outputPath).size / 2 ** 20;
      console.log(`  background ${name.padEnd(31)} fps ${(res.metadata.num_frames / sec).toFixed(1)}; speed ${(s.seconds / sec).toFixed(2)}x real time; ${mib.toFixed(1)} MiB`);
    }
  } finally {
    await backend.close();
  }
}

async function service(): Promise<void> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = serviceEnv(dir, port, {});
  const child = startService(env, ['ignore', 'ignore', 'inherit']);
  await waitForHealth(base, child);
  const user = JSON.parse(execFileSync(process.execPath, [...NODE_ARGS, 'src/main.ts', 'users', 'create', '--name', 'bench', '--credits', '1000'], { cwd: root, env, encoding: 'utf8' }).trim()) as { api_key: string };
  const headers = { authorization: `Basic ${user.api_key}`, 'content-type': 'application/json' };
  // Let the talking previews the service renders at start finish first: they share the one render process.
  await sleep(20_000);
  const playable: number[] = [];
  const done: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const t = performance.now();
    const created = (await (await fetch(`${base}/clips`, { method: 'POST', headers, body: JSON.stringify({ script: { type: 'text', input: TEXT } }) })).json()) as { id: string };
    let played: number | undefined;
    for (;;) {
      const rec = (await (await fetch(`${base}/clips/${created.id}`, { headers })).json()) as { status: string; pending_url?: string };
      if (played === undefined && rec.pending_url) {
        const list = await fetch(rec.pending_url);
        const text = list.status === 200 ? await list.text() : '';
        const segment = /^(?!#)\S+$/m.exec(text)?.[0];
        if (segment) {
          const seg = await fetch(new URL(segment, rec.pending_url));
          if (seg.status === 200 && (await seg.arrayBuffer()).byteLength > 0) played = (performance.now() - t) / 1000;
        }
      }
      if (rec.status === 'done' || rec.status === 'error') {
        if (rec.status === 'error') throw new Error(`clip ended in error: ${JSON.stringify(rec)}`);
        done.push((performance.now() - t) / 1000);
        break;
      }
      await sleep(50);
    }
    if (played !== undefined) playable.push(played);
  }
  const p = playable.length ? median(playable) : NaN;
  console.log(`  service POST → pending_url plays: ${playable.map((v) => v.toFixed(2)).join(' ')} s, median ${p.toFixed(2)} s (goal ≤ 2 s: ${p <= 2 ? 'met' : 'misses'}); POST → done ${done.map((v) => v.toFixed(2)).join(' ')} s`);
  if (playable.length < ROUNDS) console.log(`  (in ${ROUNDS - playable.length} round(s) the clip was done before a segment could be fetched)`);
}

await runBench(async () => {
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown'}, ${cpus().length} cores, node ${process.version}; ${ROUNDS} rounds`);
  const s = await speech();
  await render(s);
  await audioScript(s);
  if (process.env.BENCH_BACKGROUNDS !== '0') await backgrounds(s);
  await service();
}, () => rmSync(dir, { recursive: true, force: true }));
