import { open, rm } from 'node:fs/promises';
import { ApiError } from '../../errors.ts';
import { writeCapped } from '../../media/capped.ts';
import { taskOf } from '../tasks/index.ts';
import type { FileBrand } from '../tasks/task.ts';
import { authorizeFile, type ComputeServiceDeps, type FileQuery } from './service.ts';
import { localComputeFiles } from './files.ts';

const tooLarge = (max: number) => new ApiError('PayloadTooLargeError', `The result is larger than the limit of ${max} bytes`);

/** Whether the file starts as `brand` says: its ftyp box's major brand, or its magic bytes. */
async function startsAs(file: string, want: FileBrand): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(12);
    const { bytesRead } = await handle.read(buf, 0, 12, 0);
    if ('magic' in want) return bytesRead >= want.magic.length / 2 && buf.toString('hex', 0, want.magic.length / 2) === want.magic;
    return bytesRead === 12 && buf.toString('latin1', 4, 8) === 'ftyp' && buf.toString('latin1', 8, 12) === want.ftyp;
  } finally {
    await handle.close();
  }
}

/**
 * PUT of an output (`result`; `reference`, `idle`): streamed to a file of its own (one per attempt), never held in memory,
 * cut off at `maxResultBytes`, and kept only when it is what the output must be (a container of the task's format, a PNG)
 * and the lease is still live once it is written. A repeated upload replaces the file.
 */
export async function storeResult(
  deps: ComputeServiceDeps,
  taskId: string,
  name: string,
  q: FileQuery,
  body: ReadableStream<Uint8Array> | null,
  declaredLength: string | undefined,
): Promise<void> {
  const row = await authorizeFile(deps, taskId, name, 'PUT', q);
  const output = taskOf(row.kind).remote.outputFile(JSON.parse(row.request), name);
  if (!output) throw new ApiError('NotFoundError', 'The task has no such output');
  const max = deps.maxResultBytes;
  if (declaredLength !== undefined && Number(declaredLength) > max) throw tooLarge(max);
  const files = deps.files ?? localComputeFiles;
  const part = files.partFile(row, name);
  const bytes = await writeCapped(body, part, max, () => tooLarge(max));
  try {
    if (!(await startsAs(part, output.brand))) throw new ApiError('BadRequestError', `The ${name} is not ${output.text} file`);
    await files.keepUpload(row, name, part);
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
  if (!(await deps.tasks.recordUpload(taskId, q.lease!, bytes))) {
    await files.dropUpload(row, name);
    throw new ApiError('PermissionError', 'The lease of this file URL is no longer current');
  }
}
