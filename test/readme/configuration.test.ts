import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** docs/configuration.md is the one list of settings: every MIMIC_* variable the code reads is in it, and it names none the code does not read. */
const REPO = new URL('../../', import.meta.url).pathname;
// Not `env:NAME`: a variable an operator names on the command line (`--token env:MIMIC_WORKER_TOKEN`) is theirs, not a setting.
const NAME = /(?<!env:)\bMIMIC_[A-Z0-9_]*[A-Z0-9]\b/g;

const source = readdirSync(join(REPO, 'src'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.ts'))
  .map((f) => readFileSync(join(REPO, 'src', f), 'utf8'))
  .join('\n');
const read = new Set(source.match(NAME));
const documented = new Set(readFileSync(join(REPO, 'docs/configuration.md'), 'utf8').match(NAME));

describe('docs/configuration.md', () => {
  it('lists every MIMIC_* variable the code reads', () => {
    expect(read.size).toBeGreaterThan(40);
    expect([...read].filter((v) => !documented.has(v)).sort()).toEqual([]);
  });

  it('lists no variable the code does not read', () => {
    expect([...documented].filter((v) => !read.has(v)).sort()).toEqual([]);
  });
});
