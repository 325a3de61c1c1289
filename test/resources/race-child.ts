/**
 * One of two processes racing over the same animations on one SQLite file:
 * node --import tsx test/resources/race-child.ts <database file> <seed> <count>
 * Prints "ready", waits for `<database file>.go`, then, three times over every record, fails,
 * finishes or deletes it (picked at random), and prints what it won as JSON.
 */
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore } from '../../src/db/client.ts';
import { createAllStores } from '../helpers/stores.ts';
import { systemClock } from '../../src/clock.ts';
import { animationLifecycle } from '../../src/animations/kind.ts';

const [file, seedText, countText] = process.argv.slice(2);
const handle = openStore(file!);
const life = animationLifecycle(createAllStores(handle).resources, systemClock, { signedUrl: () => '' });

let seed = Number(seedText) >>> 0;
const random = (n: number): number => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed % n;
};

process.stdout.write('ready\n');
while (!existsSync(`${file}.go`)) await sleep(2);

const won = { done: [] as string[], failed: [] as string[], removed: [] as { id: string; unfinished: boolean }[] };
for (let round = 0; round < 3; round++) {
  for (let i = 0; i < Number(countText); i++) {
    const id = `anm_race${i}`;
    const action = random(3);
    if (action === 0 && (await life.finish(id, { resultKey: null, resultExternalUrl: null, metadata: {}, faceIds: [] }))) won.done.push(id);
    if (action === 1 && (await life.fail(id, 'UnknownError', 'raced'))) won.failed.push(id);
    if (action === 2) {
      const row = await life.remove('usr_race', id, 'Animation').catch(() => undefined);
      if (row) won.removed.push({ id, unfinished: row.finishedAt === null });
    }
  }
}
handle.close();
process.stdout.write(JSON.stringify(won) + '\n');
