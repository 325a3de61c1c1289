/**
 * A worker thread of the stream render process that prepares faces (picture decoding, face
 * search, rig, matte), so a stream opening never holds up the frames of the streams already
 * playing on the main thread. The face models load here, once.
 */
import { parentPort } from 'node:worker_threads';
import { RenderError } from '../../../errors.ts';
import { warmFaces } from '../faces.ts';
import { matteOf, preparedFace, type PrepareRequest, type PrepareReply } from './prepare.ts';

parentPort!.on('message', (m: PrepareRequest) => {
  void (async (): Promise<PrepareReply> => {
    try {
      if (m.warm) {
        await warmFaces();
        return { id: m.id, ok: true, warmed: true };
      }
      const f = await preparedFace(m.path, m.face, m.stitch);
      const matte = m.matte ? await matteOf(f) : undefined;
      return { id: m.id, ok: true, image: f.image, rig: f.rig, ...(matte ? { matte } : {}) };
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      return { id: m.id, ok: false, message: e.message, ...(err instanceof RenderError ? { renderKind: err.kind } : {}) };
    }
  })().then((reply) => parentPort!.postMessage(reply));
});
