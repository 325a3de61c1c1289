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

process.on('message', (raw) => {
  const msg = raw as ParentMessage;
  if (msg.type !== 'render' && msg.type !== 'train') return;
  const progress = (done: number, total: number) => send({ type: 'progress', id: msg.id, done, total });
  const work = msg.type === 'render' ? renderJob(msg.job, progress) : trainAvatar(msg.job, progress);
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
