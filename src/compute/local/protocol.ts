/** Messages between the backend (parent) and its render process. */
import type { RenderErrorKind } from '../../errors.ts';

/** A job for the render process: `runner` names one of its RUNNERS (a task kind's `local.runner`), `job` is that runner's input. */
export type ParentMessage = { type: 'job'; id: number; runner: string; job: unknown };

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'result'; id: number; result: unknown }
  | { type: 'error'; id: number; error: { message: string; stack?: string; renderKind?: RenderErrorKind } };
