/**
 * A second API process, reduced to its claims: opens the database file, waits for "go <epoch ms>" on
 * stdin and that moment, claims until nothing is left, prints the ids it got as one JSON line.
 * node --import tsx test/compute/remote/claim-child.ts <database file> <worker id>
 */
import { openStore } from '../../../src/db/client.ts';
import { systemClock, randomId } from '../../../src/clock.ts';
import { createComputeTasks } from '../../../src/compute/remote/task-store.ts';

const [databaseFile, workerId] = process.argv.slice(2);
const store = openStore(databaseFile!);
const tasks = createComputeTasks(store, systemClock, randomId, { leaseMs: 60_000, maxAttempts: 3 });
process.stdout.write('ready\n');
process.stdin.once('data', async (data: Buffer) => {
  // Both processes start at the same moment, so their claims interleave.
  const at = Number(data.toString().split(' ')[1]);
  while (Date.now() < at);
  const got: string[] = [];
  const who = { id: workerId!, name: workerId!, label: workerId! };
  for (let row = await tasks.claim(who); row; row = await tasks.claim(who)) {
    got.push(row.id);
    // A breath between claims, as a real server has: otherwise one process starves the other of the write lock.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
  }
  process.stdout.write(JSON.stringify(got) + '\n');
  store.close();
  process.exit(0);
});
