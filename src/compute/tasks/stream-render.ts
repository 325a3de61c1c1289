/**
 * A live stream (POST /talks/streams, /clips/streams, /agents/{id}/streams): source = the picture, background = the
 * picture it is shown on; nothing is uploaded: speech comes in and RTP goes out over the task's `stream_url` socket
 * (docs/compute-protocol.md, "Live streams"). It is opened by the stream renderer (src/compute/stream.ts), never
 * run through `ComputeBackend.run`: its result type is `never`.
 */
import type { StreamOpenRequest } from '../stream.ts';
import { runStreamSocket } from '../remote/worker/stream-socket.ts';
import { RESULT_BRAND, RESULT_CONTENT_TYPE, RESULT_TEXT } from '../remote/protocol.ts';
import { downloadRenderInputs, faceOf, presentRender, renderCompletion, renderInputPath, storedRender, type StoredRender } from './render-task.ts';
import type { TaskDefinition } from './task.ts';

export const streamRender: TaskDefinition<'stream.render', StreamOpenRequest, never, StoredRender> = {
  kind: 'stream.render',
  inputs: ['source', 'background'],
  outputs: [],
  remote: {
    store: (req) => ({
      request: storedRender({
        sourcePath: req.sourcePath, driver: { kind: 'live', seed: req.seed }, ...(req.face ? { face: req.face } : {}), resultFormat: 'mp4', mute: false,
        stitch: req.stitch, maxAnimatedFaces: 1, logo: { kind: 'none' }, ...(req.background ? { background: req.background } : {}),
      }),
      outputPath: '',
    }),
    inputPath: renderInputPath,
    // The render fields' `result` slot, as every task with `render` has had since before kinds; a stream never uses it.
    outputFile: (stored, name) =>
      name === 'result' ? { contentType: RESULT_CONTENT_TYPE[stored.resultFormat], brand: RESULT_BRAND[stored.resultFormat], text: RESULT_TEXT[stored.resultFormat] } : null,
    present: (stored, { sign, maxBytes, streamUrl }) => ({
      outputs: {},
      stream_url: streamUrl(),
      render: presentRender(stored, sign),
      result: { upload_url: sign('result', 'PUT'), method: 'PUT', content_type: RESULT_CONTENT_TYPE[stored.resultFormat], max_bytes: maxBytes },
    }),
    // A stream is never completed (the service cancels it when the stream ends); a complete call is checked as a render's.
    completion: renderCompletion,
    readBack: async () => null,
  },
  worker: {
    claims: ({ streams }) => streams !== undefined,
    async execute(task, ctx) {
      const r = task.render;
      if (!r || !task.result || !ctx.streams || !task.stream_url || r.driver.kind !== 'live') throw new Error('this worker cannot run this stream task');
      const inputs = await downloadRenderInputs(r, task.result.max_bytes, ctx);
      const started = performance.now();
      ctx.sameOrigin(task.stream_url.replace(/^ws/, 'http'));
      const outcome = await runStreamSocket(
        ctx.streams,
        task.stream_url,
        { streamId: task.task_id, sourcePath: inputs.sourcePath, stitch: r.stitch, seed: r.driver.seed, workDir: ctx.dir, ...faceOf(r), ...(inputs.background ? { background: inputs.background } : {}) },
        ctx.signal,
      );
      ctx.log.info('stream ended', { task_id: task.task_id, attempt: task.attempt, outcome, streamed_ms: Math.round(performance.now() - started) });
      return outcome;
    },
  },
};
