/**
 * The render process: receives jobs (renders, trainings) from the backend over IPC, one at a time, and answers
 * with progress, a result or an error. Human's models stay loaded between jobs.
 */
import { RenderError } from '../../errors.ts';
import { activeProcesses } from '../../media/ffmpeg.ts';
import { renderJob } from './render.ts';
import { trainAvatar } from './train.ts';
import type { ChildMessage, ParentMessage } from './protocol.ts';

const send = (m: ChildMessage) => process.send?.(m);

/** The jobs this process runs, by the runner name a task kind's `local` part gives (src/compute/tasks/). */
const RUNNERS: Record<string, (job: never, progress: (done: number, total: number) => void) => Promise<unknown>> = {
  render: renderJob,
  train: trainAvatar,
};

process.on('message', (raw) => {
  const msg = raw as ParentMessage;
  if (msg.type !== 'job') return;
  const progress = (done: number, total: number) => send({ type: 'progress', id: msg.id, done, total });
  const runner = RUNNERS[msg.runner];
  const work = runner ? runner(msg.job as never, progress) : Promise.reject(new Error(`the render process has no runner ${msg.runner}`));
  work.then(
    (result) => send({ type: 'result', id: msg.id, result }),
    (err: unknown) => {
      const e = err instanceof Error ? err : new Error(String(err));
      send({
        type: 'error',
        id: msg.id,
        error: { message: e.message, stack: e.stack, renderKind: err instanceof RenderError ? err.kind : undefined },
      });
    },
  );
});

const stop = () => {
  for (const p of activeProcesses) p.kill('SIGKILL');
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('disconnect', stop);
send({ type: 'ready' });
