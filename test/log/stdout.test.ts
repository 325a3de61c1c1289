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
});
