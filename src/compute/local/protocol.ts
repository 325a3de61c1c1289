/** Messages between the backend (parent) and its render process. */
import type { RenderErrorKind } from '../../errors.ts';
import type { RenderResult } from '../interface.ts';
import type { RenderJob } from './render.ts';

export type ParentMessage = { type: 'render'; id: number; job: RenderJob };

export type ChildMessage =
  | { type: 'ready' }
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'result'; id: number; result: RenderResult }
  | { type: 'error'; id: number; error: { message: string; stack?: string; renderKind?: RenderErrorKind } };
