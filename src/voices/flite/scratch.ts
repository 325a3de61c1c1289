/**
 * Flite's scratch folders in the system's temporary directory: one per synthesis, named
 * `mimic-flite-<pid>-<thread>-<random>` so that what a dead process (a crash, a kill -9) or a
 * terminated worker thread left behind can be told from what a live one is using.
 */
import { readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const NAME = /^mimic-flite-(\d+)-(\d+)-/;

/** The prefix for mkdtemp of one synthesis in this process and thread. */
export function scratchPrefix(pid: number, threadId: number): string {
  return join(tmpdir(), `mimic-flite-${pid}-${threadId}-`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'; // alive, someone else's
  }
}

/**
 * Removes the scratch folders that belong to no live process, and those of the given threads
 * of this process (terminated while they spoke). Returns how many it removed.
 */
export function removeFliteScratch(threadsOfThisProcess: readonly number[] = []): number {
  let removed = 0;
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return 0;
  }
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const mine = pid === process.pid && threadsOfThisProcess.includes(Number(m[2]));
    if (!mine && (pid === process.pid || alive(pid))) continue;
    rmSync(join(tmpdir(), name), { recursive: true, force: true });
    removed++;
  }
  return removed;
}
