/**
 * Benchmark of the local stream renderer (no WebRTC: packets counted at the sink): open() to
 * ready, speak() to the first audio packet, frames per second held while idle and speaking,
 * CPU of the render process and its encoders per stream. Never fails on timing.
 *
 *   npx tsx bench/stream-engine.ts [vp8|h264] [streams]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLocalStreamRenderer } from '../src/compute/local/stream/index.ts';
import type { StreamEvent, StreamRenderSession, VideoCodec } from '../src/compute/stream.ts';
import { toneSpeech } from '../test/helpers/tone-voice.ts';
import { median } from './stats.ts';

const codec = (process.argv[2] ?? 'vp8') as VideoCodec;
const streams = Number(process.argv[3] ?? 1);
const source = fileURLToPath(new URL('../assets/sample-source.png', import.meta.url));
const presenter = fileURLToPath(new URL('../assets/presenters/grace.jpg', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system) of a process and its children still running, from /proc. */
function cpuSeconds(pid: number): number {
  const ticks = (p: number) => {
    try {
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return Number(f[11]) + Number(f[12]);
    } catch { return 0; }
  };
  const kids = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).trim().split(/\s+/).filter(Boolean).map(Number);
  return [pid, ...kids].reduce((s, p) => s + ticks(p), 0) / 100;
}

interface Watch {
  session: StreamRenderSession;
  frames: { at: number; ts: number }[];
  audio: { at: number }[];
  events: (StreamEvent & { at: number })[];
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'mimic-stream-bench-'));
  const renderer = createLocalStreamRenderer();
  console.log(`machine: ${cpus()[0]?.model ?? 'unknown cpu'}, ${cpus().length} cores, node ${process.version}; codec ${codec}, ${streams} stream(s)\n`);
  const open = async (path: string, id: string): Promise<Watch> => {
    const w: Watch = { session: undefined as unknown as StreamRenderSession, frames: [], audio: [], events: [] };
    let lastTs = -1;
    w.session = await renderer.open({ streamId: id, sourcePath: path, stitch: false, seed: id, workDir: dir }, {
      video: (p) => { const ts = p.readUInt32BE(4); if (ts !== lastTs) { lastTs = ts; w.frames.push({ at: performance.now(), ts }); } },
      audio: () => w.audio.push({ at: performance.now() }),
    }, (e) => w.events.push({ ...e, at: performance.now() }));
    return w;
  };
  const until = async (ok: () => boolean) => { while (!ok()) await sleep(2); };
  try {
    // Cold: render process start, face models, face search, rig; then the encoders and the warm-up clip.
    let t = performance.now();
    const a = await open(source, 'cold');
    const opened = performance.now() - t;
    await a.session.start({ codec, fluent: false, warmup: true });
    const started = performance.now() - t;
    await until(() => a.events.some((e) => e.type === 'ready'));
    console.log(`cold open ${opened.toFixed(0)} ms, start ${(started - opened).toFixed(0)} ms, open() to ready ${(performance.now() - t).toFixed(0)} ms`);
    t = performance.now();
    const b = await open(source, 'cached');
    const cached = performance.now() - t;
    t = performance.now();
    const c = await open(presenter, 'other');
    console.log(`open of the same picture again (cached rig) ${cached.toFixed(0)} ms; another picture, models loaded ${(performance.now() - t).toFixed(0)} ms`);
    await b.session.close();
    await c.session.close();

    // speak() to the first audio packet (not fluent: no packet flows before the speech).
    const lat: number[] = [];
    for (let i = 0; i < 8; i++) {
      await sleep(600 + 37 * i);
      const s = toneSpeech('one two', 'x');
      const before = a.audio.length;
      const at = performance.now();
      a.session.speak({ videoId: `l${i}`, pcm: s.pcm, sampleRate: s.sampleRate, cues: s.phonemes, last: true });
      await until(() => a.audio.length > before);
      lat.push(a.audio[before]!.at - at);
      await until(() => a.events.some((e) => e.type === 'done' && e.videoId === `l${i}`));
    }
    console.log(`speak() to first audio packet: median ${median(lat).toFixed(0)} ms, max ${Math.max(...lat).toFixed(0)} ms (${lat.map((x) => x.toFixed(0)).join(', ')})`);
    await a.session.close();

    // fps and CPU: fluent streams, idle then speaking.
    const ws: Watch[] = [];
    for (let i = 0; i < streams; i++) {
      const w = await open(source, `fluent${i}`);
      await w.session.start({ codec, fluent: true, warmup: false });
      ws.push(w);
    }
    const { pid } = await renderer.stats();
    const window = async (label: string, ms: number) => {
      await sleep(1000);
      const from = performance.now(), cpu0 = cpuSeconds(pid!);
      const n0 = ws.map((w) => w.frames.length);
      await sleep(ms);
      const secs = (performance.now() - from) / 1000;
      const cpu = cpuSeconds(pid!) - cpu0;
      const fps = ws.map((w, i) => (w.frames.length - n0[i]!) / secs);
      console.log(`${label}: ${fps.map((f) => f.toFixed(1)).join(', ')} fps delivered; CPU of render process + encoders ${(cpu / secs).toFixed(2)} cores (${(cpu / secs / streams).toFixed(2)} per stream)`);
    };
    await window('idle (fluent)', 6000);
    const long = toneSpeech(Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '), 'x');
    for (const w of ws) w.session.speak({ videoId: 'long', pcm: long.pcm, sampleRate: long.sampleRate, cues: long.phonemes, last: true });
    await window('speaking', 6000);
    // A new presenter opening while the streams play (its face searched on the preparation thread).
    const before = (await renderer.stats()).frames!;
    const other = fileURLToPath(new URL('../assets/presenters/mehmet.jpg', import.meta.url));
    t = performance.now();
    const d = await open(other, 'during');
    const openMs = performance.now() - t;
    await sleep(500);
    const after = (await renderer.stats()).frames!;
    console.log(`open() of another picture during playback ${openMs.toFixed(0)} ms; frames dropped meanwhile: ${after.dropped - before.dropped} of ${after.rendered - before.rendered + after.dropped - before.dropped}`);
    await d.session.close();
    const { frames } = await renderer.stats();
    console.log(`frames since the render process started: ${frames!.rendered} rendered and sent, ${frames!.dropped} dropped unrendered (late, or the encoder busy), ${frames!.discarded} rendered and thrown away`);
    for (const w of ws) await w.session.close();
  } finally {
    await renderer.close();
    await rm(dir, { recursive: true, force: true });
  }
}

void main();
