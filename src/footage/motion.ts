/**
 * How much a stretch of video moves: the mean absolute luma difference between consecutive
 * frames (ffmpeg `tblend=all_mode=difference` then `signalstats` YAVG), 0..255, its mean
 * over the stretch and its 95th percentile (a short gesture in a still ending shows there).
 */
import { runFfmpeg } from '../media/ffmpeg.ts';
import { seekArgs } from './probe.ts';

const abortError = (): DOMException => new DOMException('the footage analysis was aborted', 'AbortError');

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((x, y) => x - y);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export async function motionEnergy(path: string, opts: { fromSec: number; toSec: number; signal?: AbortSignal }): Promise<{ mean: number; p95: number; frames: number }> {
  const span = opts.toSec - opts.fromSec;
  if (!(span > 0)) throw new RangeError(`the range [${opts.fromSec}, ${opts.toSec}) is empty`);
  // The per-frame values go to stdout (collected whole); stderr keeps only errors. The colon of
  // `pipe:1` is escaped twice: once for the filter graph, once for the filter's options.
  const r = await runFfmpeg([
    '-v', 'error', ...seekArgs(path, opts.fromSec), '-t', span.toFixed(3), '-map', '0:v:0', '-an',
    '-vf', 'format=gray,tblend=all_mode=difference,signalstats,metadata=print:key=lavfi.signalstats.YAVG:file=pipe\\\\:1',
    '-f', 'null', '-',
  ], { signal: opts.signal, timeoutMs: 30 * 60_000 });
  if (opts.signal?.aborted) throw abortError();
  if (r.code !== 0) throw new Error(`ffmpeg could not measure motion (exit ${r.code}): ${r.stderr.trim().split('\n').at(-1) ?? ''}`);
  const values = [...r.stdout.toString('latin1').matchAll(/lavfi\.signalstats\.YAVG=([\d.]+)/g)].map((m) => Number(m[1]));
  const mean = values.length ? values.reduce((s, v) => s + v, 0) / values.length : 0;
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return { mean: round(mean), p95: round(percentile(values, 95)), frames: values.length };
}
