/**
 * The local CPU backend. Tasks (renders, trainings: each kind's `local` runner in src/compute/tasks/) run in one long-lived child process (so the caller's event
 * loop never blocks and the face models load once), one render at a time, in arrival order.
 * Aborting a render kills that process; the next render starts a fresh one.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RenderError } from '../../errors.ts';
import type { ComputeBackend, RenderRequest } from '../interface.ts';
import { taskOf } from '../tasks/index.ts';
import type { ChildMessage, ParentMessage } from './protocol.ts';

export interface LocalBackendOptions {
  /**
   * Node options for the render process. Default: none when running compiled JavaScript,
   * tsx's loader when running from TypeScript sources (tsx, vitest).
   */
  execArgv?: string[];
}

const abortError = (): DOMException => new DOMException('the render was aborted', 'AbortError');

/**
 * Forks the render process module `name` beside the module `base` (a URL), IPC with advanced
 * serialization (Buffers and typed arrays cross as they are). From TypeScript sources (tsx,
 * vitest) it runs with tsx's loader; `execArgv` overrides.
 */
export function forkRenderProcess(base: string, name: string, execArgv?: string[]): ChildProcess {
  const fromTs = base.endsWith('.ts');
  const file = fileURLToPath(new URL(`./${name}.${fromTs ? 'ts' : 'js'}`, base));
  const tsx = fromTs ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : [];
  return fork(file, [], { execArgv: execArgv ?? tsx, stdio: ['ignore', 'ignore', 'inherit', 'ipc'], serialization: 'advanced' });
}

export function createLocalBackend(opts: LocalBackendOptions = {}): ComputeBackend {
  let child: ChildProcess | undefined;
  let nextId = 1;
  let tail: Promise<unknown> = Promise.resolve();
  let closed = false;

  const spawnChild = (): ChildProcess => {
    const c = forkRenderProcess(import.meta.url, 'child', opts.execArgv);
    c.on('exit', () => {
      if (child === c) child = undefined;
    });
    return c;
  };

  /** SIGTERM lets the render process stop its ffmpeg processes; SIGKILL if it does not exit soon. */
  const stopChild = (c: ChildProcess) => {
    if (child === c) child = undefined;
    if (c.exitCode !== null || c.signalCode !== null) return;
    c.kill('SIGTERM');
    const force = setTimeout(() => c.kill('SIGKILL'), 2000);
    force.unref();
    c.once('exit', () => clearTimeout(force));
  };

  /** One job in the render process: its message, its signal and progress, and the files an abort removes. */
  const run = <T>(req: Pick<RenderRequest, 'signal' | 'onProgress'>, message: (id: number) => ParentMessage, outputs: string[]): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (closed) return reject(new Error('the local backend is closed'));
      if (req.signal.aborted) return reject(abortError());
      const c = (child ??= spawnChild());
      const id = nextId++;
      const cleanup = () => {
        c.off('message', onMessage);
        c.off('exit', onExit);
        req.signal.removeEventListener('abort', onAbort);
        // An idle render process must not keep the caller alive.
        c.channel?.unref();
        c.unref();
      };
      const onMessage = (raw: unknown) => {
        const m = raw as ChildMessage;
        if (!('id' in m) || m.id !== id) return;
        if (m.type === 'progress') req.onProgress?.(m.done, m.total);
        else if (m.type === 'result') { cleanup(); resolve(m.result as T); }
        else if (m.type === 'error') {
          cleanup();
          if (m.error.renderKind) reject(new RenderError(m.error.renderKind, m.error.message));
          else reject(Object.assign(new Error(`local render failed: ${m.error.message}`), { cause: m.error.stack }));
        }
      };
      const onExit = (code: number | null, signal: string | null) => {
        cleanup();
        reject(new Error(`the render process exited (code ${code}, signal ${signal})`));
      };
      const onAbort = () => {
        cleanup();
        // A half-written output must not look like a result; remove it once ffmpeg is gone too.
        const removeOutputs = () => void Promise.all(outputs.map((o) => rm(o, { force: true }))).catch(() => {});
        c.once('exit', removeOutputs);
        stopChild(c);
        removeOutputs();
        reject(abortError());
      };
      c.on('message', onMessage);
      c.on('exit', onExit);
      req.signal.addEventListener('abort', onAbort, { once: true });
      c.ref();
      c.channel?.ref();
      c.send(message(id));
    });

  /** Jobs run one at a time, in arrival order; one aborted while it waits for its turn fails at once. */
  const queued = <T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> => {
    const turn = new Promise<void>((resolve, reject) => {
      const onAbort = () => reject(abortError());
      signal.addEventListener('abort', onAbort, { once: true });
      void tail.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
    const result = turn.then(work);
    tail = result.catch(() => {});
    return result;
  };

  return {
    name: 'local',
    run: (kind, req) => {
      const local = taskOf(kind).local;
      if (!local) return Promise.reject(new Error(`the local backend does not run ${kind} tasks`));
      return queued(req.signal, () => run<never>(req, (id) => ({ type: 'job', id, runner: local.runner, job: local.job(req) }), local.outputs(req)));
    },
    async close() {
      closed = true;
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      const exited = new Promise((r) => c.once('exit', r));
      // The idle child is unref'd; waiting for it must keep the caller alive (a script's last await).
      c.ref();
      stopChild(c);
      await exited;
    },
  };
}
