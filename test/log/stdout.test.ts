import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// A process that logs one line to stdout through the default (asynchronous, batched)
// destination, then stays alive without logging anything else.
const CHILD = `
import { createLogger } from './src/log.ts';
createLogger().info('one quiet line', { token: 'hunter2hunter2' });
setTimeout(() => {}, 60_000);
`;

describe('the stdout logger', () => {
  it('writes a quiet service line out without waiting for a full batch or for exit, redacted', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CHILD], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out);
        });
        child.once('exit', (code) => reject(new Error(`the child exited (${code}) before writing a line`)));
      });
      expect(JSON.parse(line)).toMatchObject({ level: 'info', msg: 'one quiet line', token: '[redacted]' });
      expect(child.exitCode).toBeNull(); // written while it was still running
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);

  // Batches of about 4 KiB wait in the logger before sonic-boom takes them: none may be lost
  // when the process ends, whether it calls process.exit at once or runs out of work.
  const endings = ['process.exit(0)', '/* the event loop empties */'];
  for (const [lines, ending] of [1003, 10].flatMap((n) => endings.map((e) => [n, e] as const))) {
    it(`writes every line of ${lines}, in order, when the process ends by ${ending}`, async () => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', '--input-type=module', '-e', `
import { createLogger } from './src/log.ts';
const log = createLogger();
for (let i = 0; i < ${lines}; i++) log.info('line', { i });
${ending};
`],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      expect(code).toBe(0);
      const written = out.trimEnd().split('\n').map((l) => JSON.parse(l) as { i: number; time: string });
      expect(written.map((l) => l.i)).toEqual(Array.from({ length: lines }, (_, i) => i));
      expect(Number.isNaN(Date.parse(written[0]!.time))).toBe(false);
    }, 30_000);
  }
});
