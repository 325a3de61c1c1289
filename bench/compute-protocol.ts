/**
 * Overhead of the compute worker protocol per job: a real `serve` with the remote backend
 * and one warm `mimic worker` process on loopback render short bank animations one after
 * the other. For each task the service records when render() handed it over (created_at),
 * when a worker claimed it, when the result was uploaded and when it completed; the worker
 * reports its own render time. Overhead = finished_at - created_at - render_ms: the claim,
 * the input downloads, the heartbeats, the upload and the completion. Prints medians and
 * the share of the job's time; never fails on timing.
 *
 *   npx tsx bench/compute-protocol.ts [jobs]
 */
import { cpus } from 'node:os';
import { killAll, shortBankDrivers, spawnWorker, startRemoteService, waitForAnimations, type Proc } from '../test/helpers/remote.ts';
import { median, percentile } from './stats.ts';

const jobs = Number(process.argv[2] ?? 10);

async function main(): Promise<void> {
  const cpu = cpus();
  console.log(`machine: ${cpu[0]?.model ?? 'unknown cpu'}, ${cpu.length} cores, node ${process.version}`);
  console.log(`${jobs} jobs one after another (after one warm-up job), one worker, service and worker on loopback\n`);
  const service = await startRemoteService();
  const workers: Proc[] = [];
  try {
    const { token } = service.addWorker('bench');
    workers.push(spawnWorker(service, token, 'bench-1'));
    const [driver] = shortBankDrivers(1);
    const ids: string[] = [];
    for (let i = 0; i <= jobs; i++) {
      const created = await service.api('POST', '/animations', { driver_url: driver, config: { logo: false } });
      if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.body)}`);
      const [rec] = await waitForAnimations(service, [created.body.id]);
      if (rec.status !== 'done') throw new Error(`animation ended in ${rec.status}: ${JSON.stringify(rec.error)}`);
      ids.push(created.body.id);
    }
    const tasks = service.tasks().filter((t) => ids.slice(1).includes(t.animation_id));
    const overhead = tasks.map((t) => t.finished_at! - t.created_at - t.render_ms!).sort((a, b) => a - b);
    const claim = tasks.map((t) => t.claimed_at! - t.created_at);
    const total = tasks.map((t) => t.finished_at! - t.created_at);
    const render = tasks.map((t) => t.render_ms!);
    console.log(`render in the worker: median ${median(render)} ms (${driver}, no logo)`);
    console.log(`task handed over → claimed: median ${median(claim)} ms`);
    console.log(`task handed over → completed: median ${median(total)} ms`);
    console.log(`protocol overhead per job: median ${median(overhead)} ms, p90 ${percentile(overhead, 0.9)} ms, max ${overhead.at(-1)} ms`);
    console.log(`overhead share of the job: ${((median(overhead) / median(total)) * 100).toFixed(1)} %`);
    console.log('goal: protocol overhead per job under 50 ms');
  } finally {
    await killAll(workers);
    await service.close();
  }
}

main().catch((err: unknown) => {
  console.error('bench failed:', err);
  process.exitCode = 1;
});
