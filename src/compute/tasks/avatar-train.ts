/**
 * Avatar training (POST /clips/avatars): source = the footage; outputs = the presenter's picture (`reference`, a PNG)
 * and its idle loop (`idle`, an mp4); the measurements come back in the complete call's `train` object
 * (docs/compute-protocol.md, "Avatar training").
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ApiError } from '../../errors.ts';
import type { TrainMetadata } from '../../schemas/compute.ts';
import { TRAIN_OUTPUT_FILES, type TrainRequest, type TrainResult } from '../interface.ts';
import type { TrainJob } from '../local/train.ts';
import { RESULT_BRAND, RESULT_TEXT } from '../remote/protocol.ts';
import type { OutputFile, TaskDefinition } from './task.ts';

/** What a task row keeps of a TrainRequest (its `request` column). */
export interface StoredTrain {
  footagePath: string;
  idle: { fromSec: number; toSec: number };
  speech: { fromSec: number; toSec: number };
}

/** The outputs: the presenter's picture and its idle loop. */
export const TRAIN_OUTPUTS: Record<'reference' | 'idle', OutputFile> = {
  reference: { contentType: 'image/png', brand: { magic: '89504e470d0a1a0a' }, text: 'a PNG' },
  idle: { contentType: 'video/mp4', brand: RESULT_BRAND.mp4, text: RESULT_TEXT.mp4 },
};

const OUTPUT_NAMES = ['reference', 'idle'] as const;
const isOutput = (name: string): name is (typeof OUTPUT_NAMES)[number] => (OUTPUT_NAMES as readonly string[]).includes(name);

const invalid = (field: string, message: string) => new ApiError('ValidationError', `Invalid request body: ${field} ${message}`, [{ field, message }]);

export const avatarTrain: TaskDefinition<'avatar.train', TrainRequest, TrainResult, StoredTrain> = {
  kind: 'avatar.train',
  inputs: ['source'],
  outputs: OUTPUT_NAMES,
  local: {
    runner: 'train',
    job: (req): TrainJob => ({ jobId: req.jobId, footagePath: req.footagePath, idle: req.idle, speech: req.speech, outputDir: req.outputDir, workDir: req.workDir }),
    outputs: (req) => Object.values(TRAIN_OUTPUT_FILES).map((f) => join(req.outputDir, f)),
  },
  remote: {
    store: (req) => ({
      request: {
        footagePath: req.footagePath,
        idle: { fromSec: req.idle.fromSec, toSec: req.idle.toSec },
        speech: { fromSec: req.speech.fromSec, toSec: req.speech.toSec },
      },
      outputPath: req.outputDir,
    }),
    inputPath: (stored, name) => (name === 'source' ? stored.footagePath : null),
    outputFile: (_stored, name) => (isOutput(name) ? TRAIN_OUTPUTS[name] : null),
    present(stored, { sign, maxBytes }) {
      const window = (w: StoredTrain['idle']) => ({ from_sec: w.fromSec, to_sec: w.toSec });
      const output = (name: 'reference' | 'idle') => ({ upload_url: sign(name, 'PUT'), method: 'PUT' as const, content_type: TRAIN_OUTPUTS[name].contentType, max_bytes: maxBytes });
      return {
        train: { footage_url: sign('source', 'GET'), idle: window(stored.idle), speech: window(stored.speech) },
        outputs: { reference: output('reference'), idle: output('idle') },
      };
    },
    completion(body, { idle }, ctx) {
      if (!body.train) throw invalid('train', 'is required for an avatar.train task');
      if (body.metadata || body.face_ids) throw invalid('metadata', 'belongs to render tasks, not to avatar.train');
      // The reference frame lies in the idle window, and the loop was cut from it (a frame of slack each way).
      const slack = 0.05;
      if (body.train.reference_sec < idle.fromSec - slack || body.train.reference_sec > idle.toSec + slack) {
        throw invalid('train.reference_sec', `must lie in the idle window (${idle.fromSec} to ${idle.toSec} s)`);
      }
      if (body.train.loop_sec > idle.toSec - idle.fromSec + slack) throw invalid('train.loop_sec', `must not exceed the idle window (${idle.toSec - idle.fromSec} s)`);
      ctx.requireUploads(OUTPUT_NAMES);
      return { metadata: body.train, faceIds: [] };
    },
    async readBack(row, outputDir, take) {
      const m = JSON.parse(row.metadata!) as TrainMetadata;
      for (const [name, file] of Object.entries(TRAIN_OUTPUT_FILES)) if (!(await take(name, join(outputDir, file)))) return null;
      return { referenceSec: m.reference_sec, loopSec: m.loop_sec, size: m.size, pitchHz: m.pitch_hz };
    },
  },
  worker: {
    claims: () => true,
    async execute(task, ctx) {
      const t = task.train;
      const outputs = { reference: task.outputs?.reference, idle: task.outputs?.idle };
      if (!t || !outputs.reference || !outputs.idle) throw new Error('the avatar.train task lacks its parameters or outputs');
      const footagePath = await ctx.download(t.footage_url, 'source', outputs.idle.max_bytes);
      ctx.mark('downloaded');
      const outputDir = join(ctx.dir, 'out');
      await mkdir(outputDir);
      const result = await ctx.backend.run('avatar.train', {
        jobId: task.task_id,
        footagePath,
        idle: { fromSec: t.idle.from_sec, toSec: t.idle.to_sec },
        speech: { fromSec: t.speech.from_sec, toSec: t.speech.to_sec },
        outputDir,
        workDir: ctx.dir,
        signal: ctx.signal,
        onProgress: (done, total) => ctx.progress(done, total),
      });
      ctx.mark('rendered');
      for (const name of OUTPUT_NAMES) {
        const out = outputs[name]!;
        ctx.checkpoint();
        await ctx.upload(out.upload_url, join(outputDir, TRAIN_OUTPUT_FILES[name]), out.content_type);
      }
      ctx.checkpoint();
      await ctx.complete({ train: { reference_sec: result.referenceSec, loop_sec: result.loopSec, size: result.size, pitch_hz: result.pitchHz } });
      return 'completed';
    },
  },
};
