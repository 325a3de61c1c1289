import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/cli.ts';

// No container runtime here to build it: these check what the image's recipe must say.
const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
const instructions = text
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'))
  .map((l) => {
    const [word, ...rest] = l.split(/\s+/);
    return { word: word!.toUpperCase(), args: rest.join(' ') };
  });
const last = (word: string) => instructions.filter((i) => i.word === word).at(-1);
const finalStage = instructions.slice(instructions.map((i) => i.word).lastIndexOf('FROM'));

describe('Dockerfile', () => {
  it('runs node itself (exec form), not npm or a shell, so SIGTERM reaches the server', () => {
    expect(last('ENTRYPOINT')).toBeUndefined();
    const cmd = JSON.parse(last('CMD')!.args) as string[];
    expect(cmd[0]).toBe('node');
    expect(existsSync(join(ROOT, cmd[1]!))).toBe(true);
    expect(cmd.slice(2)).toEqual(['serve']);
  });

  it('checks /health and exposes the port it serves on', () => {
    expect(last('HEALTHCHECK')!.args).toMatch(/\/health/);
    const port = finalStage.find((i) => i.word === 'ENV' && /\bPORT=\d+/.test(i.args))!.args.match(/\bPORT=(\d+)/)![1];
    expect(last('EXPOSE')!.args.split(/\s+/)).toContain(port);
  });

  it('is Node 20 on Debian bookworm, with pocketsphinx from apt and the locked dependencies', () => {
    for (const from of instructions.filter((i) => i.word === 'FROM')) expect(from.args).toMatch(/^node:20-bookworm/);
    expect(finalStage.find((i) => i.word === 'RUN' && /apt-get install/.test(i.args))!.args).toMatch(/pocketsphinx-en-us/);
    expect(instructions.some((i) => i.word === 'RUN' && /npm ci\b/.test(i.args))).toBe(true);
  });

  it('keeps the data directory out of the image and on a volume', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '.mimic']));
    const dataDir = finalStage.find((i) => i.word === 'ENV' && /MIMIC_DATA_DIR=/.test(i.args))!.args.match(/MIMIC_DATA_DIR=(\S+)/)![1];
    expect(last('VOLUME')!.args).toContain(dataDir);
  });
});

describe('installing', () => {
  it("declines onnxruntime-node's download without an npm setting npm warns about", () => {
    // npm 11 honours allowScripts; older npm (Node 20's npm 10, the image's) does not, hence the variable the script reads.
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).allowScripts['onnxruntime-node']).toBe(false);
    expect(existsSync(join(ROOT, '.npmrc'))).toBe(false);
    const install = instructions.findIndex((i) => i.word === 'RUN' && /npm ci\b/.test(i.args));
    expect(instructions.slice(0, install).some((i) => i.word === 'ENV' && /\bONNXRUNTIME_NODE_INSTALL=skip\b/.test(i.args))).toBe(true);
  });
});
