/** Messages between the backend (parent) and its render process. */
import type { RenderErrorKind } from '../../errors.ts';
import type { RenderResult, TrainResult } from '../interface.ts';
import type { RenderJob } from './render.ts';
import type { TrainJob } from './train.ts';

export type ParentMessage = { type: 'render'; id: number; job: RenderJob } | { type: 'train'; id: number; job: TrainJob };

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'result'; id: number; result: RenderResult | TrainResult }
  | { type: 'error'; id: number; error: { message: string; stack?: string; renderKind?: RenderErrorKind } };
