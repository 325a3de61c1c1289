/**
 * The catalogue of compute task kinds (docs/compute-protocol.md, "Task kinds"). A new kind is
 * one file beside this one and one entry in TASKS; the backends, the worker protocol and the
 * remote worker look kinds up here. A task without a kind (rows and workers from before kinds
 * existed) is an `animation.render`.
 */
import { animationRender } from './animation-render.ts';
import { avatarTrain } from './avatar-train.ts';
import { clipRender } from './clip-render.ts';
import { streamRender } from './stream-render.ts';
import { talkRender } from './talk-render.ts';
import { DEFAULT_TASK_KIND } from './task.ts';
import type { TaskDefinition, TaskRequestBase } from './task.ts';

export const TASKS = [animationRender, clipRender, talkRender, streamRender, avatarTrain] as const;

type Task = (typeof TASKS)[number];
export type TaskKind = Task['kind'];
type DefinitionOf<K extends TaskKind> = Extract<Task, { kind: K }>;

/** What `ComputeBackend.run(kind, …)` takes for a kind. */
export type TaskRequest<K extends TaskKind> = (DefinitionOf<K> extends TaskDefinition<K, infer Req, unknown, unknown> ? Req : never) & TaskRequestBase;
/** What `ComputeBackend.run(kind, …)` gives for a kind. */
export type TaskResult<K extends TaskKind> = DefinitionOf<K> extends TaskDefinition<K, unknown, infer Res, unknown> ? Res : never;
/** The kinds a backend runs as a job (all but those whose result is `never`, like a live stream). */
export type RunnableKind = { [K in TaskKind]: [TaskResult<K>] extends [never] ? never : K }[TaskKind];
/** The kinds whose request is a RenderRequest and whose result is one video. */
export type RenderTaskKind = { [K in RunnableKind]: TaskRequest<K> extends import('../interface.ts').RenderRequest ? K : never }[RunnableKind];

export { DEFAULT_TASK_KIND };

/** Any kind, its types erased: what code that handles every kind alike works with. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTask = TaskDefinition<string, any, any, any>;

const BY_KIND: ReadonlyMap<string, AnyTask> = new Map(TASKS.map((t) => [t.kind, t as AnyTask]));

export const isTaskKind = (kind: string): kind is TaskKind => BY_KIND.has(kind);

/** The definition of `kind`; an unknown kind (a row from a newer server) is read as the default kind. */
export const taskOf = (kind: string): AnyTask => BY_KIND.get(kind) ?? BY_KIND.get(DEFAULT_TASK_KIND)!;

/** Every file name a task of some kind may have (its inputs and outputs), and `stream`, the stream socket. */
export const TASK_FILE_NAMES: ReadonlySet<string> = new Set([...TASKS.flatMap((t) => [...t.inputs, ...t.outputs]), 'stream']);
