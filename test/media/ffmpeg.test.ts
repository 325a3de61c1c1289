/**
 * The one ffmpeg runner (src/media/ffmpeg.ts) that renders, probes and the footage analysis
 * share: an abort stops the process and rejects with the signal's reason, a timeout kills it.
 */
import { describe, expect, it } from 'vitest';
import { activeProcesses, runFfmpeg } from '../../src/media/ffmpeg.ts';

/** Ten minutes of silence read in real time (-re) and decoded to nowhere: runs until something stops it. */
const LONG = ['-v', 'error', '-re', '-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '600', '-f', 'null', '-'];

describe('runFfmpeg', () => {
  it('answers the exit code and the output of a finished run', async () => {
    const r = await runFfmpeg(['-v', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', '0.1', '-f', 's16le', 'pipe:1']);
    expect(r.code).toBe(0);
    expect(r.stdout.length).toBe(1600);
  });

  it('rejects with the signal\'s reason, without starting, when the signal is already aborted', async () => {
    const ac = new AbortController();
    const reason = new Error('stopped before');
    ac.abort(reason);
    const before = activeProcesses.size;
    await expect(runFfmpeg(LONG, { signal: ac.signal })).rejects.toBe(reason);
    expect(activeProcesses.size).toBe(before);
  });

  it('kills a running ffmpeg when the signal aborts, and rejects with an AbortError when no reason was given', async () => {
    const ac = new AbortController();
    const run = runFfmpeg(LONG, { signal: ac.signal, timeoutMs: 60_000 });
    ac.abort();
    const err = await run.then(() => undefined, (e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    expect(activeProcesses.size).toBe(0);
  });

  it('kills a run that outlasts its time limit and answers its exit', async () => {
    const r = await runFfmpeg(LONG, { timeoutMs: 200 });
    expect(r.code).not.toBe(0);
  });
});
