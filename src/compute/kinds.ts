/**
 * Kinds of compute task (docs/compute-protocol.md): what a worker is asked to do, and the
 * named input files it may GET and output files it must PUT. A task without a kind (rows and
 * workers from before kinds existed) is an `animation.render`.
 */
export interface TaskKind {
  kind: string;
  inputs: readonly string[];
  outputs: readonly string[];
}

export const DEFAULT_TASK_KIND = 'animation.render';

export const TASK_KINDS: Readonly<Record<string, TaskKind>> = {
  'animation.render': { kind: 'animation.render', inputs: ['source', 'driver', 'logo', 'overlay'], outputs: ['result'] },
  /**
   * A presenter speaking: source = the presenter picture, driver = the speech audio (WAV) with its phoneme cues in the task,
   * background = the picture the presenter is shown on (when the task's background is an image).
   */
  'clip.render': { kind: 'clip.render', inputs: ['source', 'driver', 'logo', 'background'], outputs: ['result'] },
  /** A photo speaking (POST /talks): as clip.render, source = the talk's photo (stitch may be true). */
  'talk.render': { kind: 'talk.render', inputs: ['source', 'driver', 'logo'], outputs: ['result'] },
  /**
   * A live stream (POST /talks/streams, /clips/streams, /agents/{id}/streams): source = the picture, background = the
   * picture it is shown on; nothing is uploaded: speech comes in and RTP goes out over the task's `stream_url` socket.
   */
  'stream.render': { kind: 'stream.render', inputs: ['source', 'background'], outputs: [] },
  /**
   * Avatar training (POST /clips/avatars): source = the footage; outputs = the presenter's picture (`reference`, a PNG)
   * and its idle loop (`idle`, an mp4); the measurements come back in the complete call's `train` object.
   */
  'avatar.train': { kind: 'avatar.train', inputs: ['source'], outputs: ['reference', 'idle'] },
};

export const TRAIN_TASK_KIND = 'avatar.train';

export const isTaskKind = (kind: string): boolean => Object.hasOwn(TASK_KINDS, kind);
