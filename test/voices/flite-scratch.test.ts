import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VoicePool } from '../../src/voices/pool.ts';
import { createFliteProvider } from '../../src/voices/flite/index.ts';
import { removeFliteScratch } from '../../src/voices/flite/scratch.ts';

const made: string[] = [];
/** What mimic left in a temporary directory (tsx keeps its cache there too). */
const mimics = (dir: string) => readdirSync(dir).filter((n) => n.startsWith('mimic-'));
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A scratch folder as a process `pid` would have left it. */
function leftover(pid: number, thread: number): string {
  const dir = join(tmpdir(), `mimic-flite-${pid}-${thread}-test${made.length}`);
  mkdirSync(dir);
  writeFileSync(join(dir, 'speech.wav'), Buffer.alloc(1024));
  made.push(dir);
  return dir;
}

describe("Flite's temporary folders", () => {
  it('are gone after each synthesis and after the pool closes (a temporary directory of its own: nothing else there)', async () => {
    const own = mkdtempSync(join(tmpdir(), 'mimic-tmpdir-'));
    made.push(own);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = own; // the worker thread takes a copy of the environment when it starts
    const pool = new VoicePool({ size: 1, warm: false });
    const flite = createFliteProvider({ pool });
    try {
      const speech = await flite.synthesize({ text: 'Hello world. This is a test of the temporary folder.', voiceId: 'en-US-flite-slt' });
      expect(speech.durationMs).toBeGreaterThan(1_000);
      expect(mimics(own)).toEqual([]);
    } finally {
      await pool.close();
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
    expect(mimics(own)).toEqual([]);
  });

  it("a dead process's are removed when a process makes its first pool; a live process's stay", () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!; // exited: its pid is free
    const deadOnes = [leftover(dead, 0), leftover(dead, 3)];
    const live = [leftover(process.pid, 999_999), leftover(process.ppid, 1)];
    const unrelated = join(tmpdir(), `mimic-flite-notours-${process.pid}`);
    mkdirSync(unrelated);
    made.push(unrelated);

    expect(removeFliteScratch()).toBeGreaterThanOrEqual(2);
    for (const d of deadOnes) expect(existsSync(d), d).toBe(false);
    for (const d of [...live, unrelated]) expect(existsSync(d), d).toBe(true);

    // A thread of this process that a pool ended while it spoke: its folder goes with it.
    expect(removeFliteScratch([999_999])).toBe(1);
    expect(existsSync(live[0]!)).toBe(false);
  });
});
