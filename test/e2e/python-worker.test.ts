/**
 * examples/python-worker/mimic_worker.py against a real service in remote mode: the Python
 * worker claims the tasks over loopback, renders its sway transform with ffmpeg, and the
 * records, videos and errors are what it says they are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import { ROOT } from '../helpers/cli.ts';
import { killAll, spawnProc, startRemoteService, waitForAnimations, waitUntil, type Proc, type RemoteService } from '../helpers/remote.ts';
import { startTlsServer, type TestServer } from '../helpers/tls.ts';
import { meanDiff, rgbFrame, videoFacts } from '../helpers/video.ts';

/** Short, so the heartbeat (every lease_ms / 3) brings news of a cancellation within a second. */
const LEASE_MS = 3000;
const PYTHON = process.env.PYTHON ?? 'python3';
const WORKER = join(ROOT, 'examples/python-worker/mimic_worker.py');

let service: RemoteService;
let media: TestServer;
let token = '';
let caDir = '';
const workers: Proc[] = [];

/** The worker's transform (PanRenderer.shift): frame k of n is the picture rolled right by this many pixels. */
const swayShift = (k: number, n: number, width: number) => Math.round((width / 8) * Math.sin((2 * Math.PI * k) / n));

/**
 * The horizontal roll (wrapping, as the worker does it) that best turns frame `a` into frame
 * `b`, searched over ±range pixels on the top half of the frame (the logo sits bottom right).
 */
function bestShift(a: Buffer, b: Buffer, width: number, height: number, range: number): number {
  let best = 0;
  let bestDiff = Infinity;
  for (let s = -range; s <= range; s++) {
    let diff = 0;
    for (let y = 0; y < height / 2; y += 2) {
      for (let x = 0; x < width; x++) {
        const from = (y * width + ((((x - s) % width) + width) % width)) * 3;
        const to = (y * width + x) * 3;
        diff += Math.abs(a[from]! - b[to]!) + Math.abs(a[from + 1]! - b[to + 1]!) + Math.abs(a[from + 2]! - b[to + 2]!);
      }
    }
    if (diff < bestDiff) [best, bestDiff] = [s, diff];
  }
  return best;
}

/** `python3 mimic_worker.py` against the service (`--once`: one task, then exit). */
function pythonWorker(name: string, extra: string[] = [], ffmpegPath = ffmpeg.path, server = service.base): Proc {
  const w = spawnProc(
    [WORKER, '--server', server, '--name', name, '--ffmpeg', ffmpegPath, '--wait-ms', '2000', ...extra],
    { MIMIC_WORKER_TOKEN: token, PYTHONUNBUFFERED: '1' },
    PYTHON,
  );
  workers.push(w);
  return w;
}

/**
 * A `--once` worker on an animation of `driver_url`, held mid-render: its ffmpeg is a
 * stand-in whose encoder never starts (it marks a file and sleeps until killed; every other
 * call runs the real ffmpeg), so the worker sits blocked writing frames, with no timing
 * involved, until the test acts.
 */
async function heldMidRender(name: string, driver_url: string): Promise<{ worker: Proc; id: string }> {
  const started = join(caDir, `${name}.encoder-started`);
  const script = join(caDir, `${name}-ffmpeg.sh`);
  writeFileSync(
    script,
    // exec: the worker's kill hits the sleeping process itself, and nothing outlives the test for long.
    `#!/bin/sh\ncase "$*" in *libx264*) : > '${started}'; exec sleep 300;; esac\nexec '${ffmpeg.path}' "$@"\n`,
  );
  chmodSync(script, 0o755);
  const worker = pythonWorker(name, ['--once'], script);
  const created = await service.api('POST', '/animations', { driver_url });
  expect(created.status).toBe(201);
  await waitUntil(() => (existsSync(started) ? true : undefined), `${name}: the encoder to start`, 60_000);
  return { worker, id: created.body.id as string };
}

const diagnostics = () => [service.server.output().slice(-3000), ...workers.map((w) => w.output().slice(-3000))].join('\n---\n');

async function download(url: string, file: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  return file;
}

beforeAll(async () => {
  const py = spawnSync(PYTHON, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  if (py.error || py.status !== 0) {
    throw new Error(`${PYTHON} is required for the Python worker test and could not be run (${py.error?.message ?? py.stderr}); install Python 3.9+ or set PYTHON`);
  }
  const [major, minor] = py.stdout.trim().split('.').map(Number);
  if (major! < 3 || (major === 3 && minor! < 9)) throw new Error(`the Python worker needs Python 3.9+, ${PYTHON} is ${py.stdout.trim()}`);

  media = await startTlsServer();
  caDir = mkdtempSync(join(tmpdir(), 'mimic-python-worker-'));
  const caFile = join(caDir, 'test-ca.pem');
  writeFileSync(caFile, media.ca);
  service = await startRemoteService({ leaseMs: LEASE_MS, env: { MIMIC_EGRESS_ALLOW: 'localhost', NODE_EXTRA_CA_CERTS: caFile } });
  token = service.addWorker('python-e2e').token;
}, 120_000);

afterAll(async () => {
  await killAll(workers);
  await service?.close();
  await media?.close();
  if (caDir) rmSync(caDir, { recursive: true, force: true });
});

describe('the Python example worker', () => {
  it('renders a bank animation: a 512x512 mp4 that sways as the worker says, with the metadata it reported', async () => {
    const worker = pythonWorker('py-bank', ['--once']);
    const created = await service.api('POST', '/animations', { driver_url: 'bank://fun/driver-01' });
    expect(created.status).toBe(201);
    const [rec] = await waitForAnimations(service, [created.body.id], { diagnostics });
    expect(rec.error).toBeUndefined();
    expect(rec.status).toBe('done');
    expect(await worker.exited).toBe(0);

    // What the worker reported is what the record holds, and what the file is.
    const file = await download(rec.result_url, join(service.dataDir, 'py-bank.mp4'));
    expect(rec.metadata).toMatchObject({
      driver_url: 'bank://fun/driver-01',
      num_frames: 50,
      video_fps: 25,
      resolution: ['512', '512'],
      source_pose: [0, 0, 0],
      faces: [],
      size_kib: Math.round((statSync(file).size / 1024) * 10) / 10,
    });
    expect(rec.metadata.processing_fps).toBeGreaterThan(0);
    expect(rec.face_ids).toEqual([]);
    const v = videoFacts(file);
    expect(v).toMatchObject({ brand: 'isom', decodeErrors: '', hasVideo: true, hasAudio: false, frames: 50, width: 512, height: 512 });
    const [task] = service.tasks().filter((t) => t.animation_id === rec.id);
    expect(task).toMatchObject({ status: 'done', attempts: 1, worker_name: 'py-bank' });
    // For the record (never asserted): the protocol's share of the task, on loopback.
    console.info(`python worker: render ${task!.render_ms} ms, claim to complete ${task!.finished_at! - task!.claimed_at!} ms`);

    // The sway: frame k is frame 0 rolled right by (width/8)·sin(2πk/n): +64 px near k = n/4,
    // back to 0 at n/2, -64 px near 3n/4.
    const frame = (k: number) => rgbFrame(file, k, 512, 512);
    const f0 = frame(0);
    for (const k of [12, 25, 37]) expect(Math.abs(bestShift(f0, frame(k), 512, 512, 80) - swayShift(k, 50, 512)), `frame ${k}`).toBeLessThanOrEqual(1);
    const top = { x: 0, y: 0, w: 512, h: 256 };
    expect(meanDiff(f0, frame(12), 512, top)).toBeGreaterThan(10 * meanDiff(f0, frame(25), 512, top));

    // Signed URLs and the token stay out of the worker's log.
    expect(worker.output()).not.toContain(token);
    expect(worker.output()).not.toContain('signature=');
    expect(worker.output()).not.toContain('Traceback');
  }, 180_000);

  it('follows a driver video: its frame count and rate, a QuickTime mov, and its sound with mute: false', async () => {
    // 30 frames at 20 fps (1.5 s) with a tone, served over HTTPS for the service to fetch.
    const driverFile = join(service.dataDir, 'driver.mp4');
    const made = spawnSync(ffmpeg.path, [
      '-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=320x240:rate=20', '-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100',
      '-t', '1.5', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', driverFile,
    ]);
    expect(made.status, made.stderr?.toString()).toBe(0);
    const driverBytes = readFileSync(driverFile);
    media.handle((req, res) => {
      if (req.path === '/drivers/tone.mp4') return void res.writeHead(200, { 'content-type': 'video/mp4' }).end(driverBytes);
      res.writeHead(404).end();
    });

    const worker = pythonWorker('py-video', ['--once']);
    const created = await service.api('POST', '/animations', {
      driver_url: `${media.url}/drivers/tone.mp4`,
      config: { result_format: 'mov', mute: false, logo: false },
    });
    expect(created.status).toBe(201);
    const [rec] = await waitForAnimations(service, [created.body.id], { diagnostics });
    expect(rec.error).toBeUndefined();
    expect(await worker.exited).toBe(0);

    const file = await download(rec.result_url, join(service.dataDir, 'py-video.mov'));
    expect(rec.metadata).toMatchObject({ num_frames: 30, video_fps: 20, resolution: ['512', '512'] });
    const v = videoFacts(file);
    expect(v).toMatchObject({ brand: 'qt  ', decodeErrors: '', hasVideo: true, hasAudio: true, frames: 30 });
    const f0 = rgbFrame(file, 0, 512, 512);
    expect(Math.abs(bestShift(f0, rgbFrame(file, 7, 512, 512), 512, 512, 80) - swayShift(7, 30, 512))).toBeLessThanOrEqual(1);
  }, 180_000);

  it('a source that is not a decodable image ends in SourceError, reported by the Python worker', async () => {
    // A 512x512 bmp header and 1000 bytes where 768 KiB of pixels belong. The service reads a
    // bmp's header only (upload and create pass); decoding the pixels, the worker's job, fails.
    const header = Buffer.alloc(54);
    header.write('BM', 0, 'latin1');
    header.writeUInt32LE(54 + 512 * 512 * 3, 2);
    header.writeUInt32LE(54, 10);
    header.writeUInt32LE(40, 14);
    header.writeInt32LE(512, 18);
    header.writeInt32LE(512, 22);
    header.writeUInt16LE(1, 26);
    header.writeUInt16LE(24, 28);
    const form = new FormData();
    form.append('image', new Blob([Buffer.concat([header, Buffer.alloc(1000, 0x5a)])], { type: 'image/bmp' }), 'broken.bmp');
    const uploaded = await fetch(`${service.base}/images`, { method: 'POST', headers: { authorization: `Basic ${service.key}` }, body: form });
    expect(uploaded.status).toBe(201);
    const { url } = (await uploaded.json()) as { url: string };

    const worker = pythonWorker('py-broken', ['--once']);
    const created = await service.api('POST', '/animations', { source_url: url, driver_url: 'bank://subtle/driver-01' });
    expect(created.status).toBe(201);
    const [rec] = await waitForAnimations(service, [created.body.id], { diagnostics });
    expect(rec.status).toBe('error');
    expect(rec.error).toEqual({ kind: 'SourceError', description: 'The source image could not be decoded' });
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('SourceError');
    const [task] = service.tasks().filter((t) => t.animation_id === rec.id);
    expect(task).toMatchObject({ status: 'failed', attempts: 1, worker_name: 'py-broken' });
  }, 180_000);

  it('SIGTERM mid-render: the worker hands the task back without a kind, and the next worker finishes it (attempt 2)', async () => {
    const { worker, id } = await heldMidRender('py-term', 'bank://nostalgia/driver-02');
    worker.proc.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('handed back (shutting down)');
    expect(worker.output()).not.toContain('Traceback');
    const [handedBack] = service.tasks().filter((t) => t.animation_id === id);
    expect(handedBack).toMatchObject({ status: 'queued', attempts: 1 });
    expect((await service.api('GET', `/animations/${id}`)).body.status).not.toBe('error');

    const next = pythonWorker('py-next', ['--once']);
    const [rec] = await waitForAnimations(service, [id], { diagnostics });
    expect(rec.status).toBe('done');
    expect(await next.exited).toBe(0);
    const [task] = service.tasks().filter((t) => t.animation_id === id);
    expect(task).toMatchObject({ status: 'done', attempts: 2, worker_name: 'py-next' });
  }, 180_000);

  it('an animation deleted mid-render: the heartbeat gets 409 cancelled and the worker drops the task', async () => {
    const { worker, id } = await heldMidRender('py-cancel', 'bank://nostalgia/driver-03');
    expect((await service.api('DELETE', `/animations/${id}`)).status).toBe(200);
    // The next heartbeat (every lease_ms / 3) learns it; the worker stops its encoder and exits.
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toMatch(/stopped \(cancelled\)/);
    expect(worker.output()).not.toMatch(/handed back|worker fault/);
  }, 120_000);

  it('talks to the --server origin only: task URLs on another origin are refused and the task is handed back', async () => {
    // The service signs its URLs for MIMIC_PUBLIC_URL (http://127.0.0.1:port); this worker
    // was told http://localhost:port, the same service under another origin.
    const worker = pythonWorker('py-origin', ['--once'], ffmpeg.path, service.base.replace('127.0.0.1', 'localhost'));
    const created = await service.api('POST', '/animations', { driver_url: 'bank://subtle/driver-02' });
    const id = created.body.id as string;
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('refusing a URL outside the server origin');
    const [refused] = service.tasks().filter((t) => t.animation_id === id);
    expect(refused).toMatchObject({ status: 'queued', attempts: 1 });

    const next = pythonWorker('py-origin-ok', ['--once']);
    const [rec] = await waitForAnimations(service, [id], { diagnostics });
    expect(rec.status).toBe('done');
    expect(await next.exited).toBe(0);
  }, 120_000);

  it('exits 2 when the service refuses its token', async () => {
    const worker = spawnProc([WORKER, '--server', service.base, '--ffmpeg', ffmpeg.path], { MIMIC_WORKER_TOKEN: 'mwk_not-a-token' }, PYTHON);
    workers.push(worker);
    expect(await worker.exited).toBe(2);
    expect(worker.output()).toContain('refused the worker token');
  }, 60_000);

  it('stops on SIGTERM while it waits for work, and exits 0', async () => {
    const worker = pythonWorker('py-idle');
    await waitUntil(() => (worker.output().includes('polling') ? true : undefined), 'the worker to start polling');
    worker.proc.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('stopped');
  }, 60_000);
});
