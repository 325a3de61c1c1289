import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * The README, SECURITY.md and docs/ link to each other and to sections of each other: a
 * section that moves (the README's walk-throughs went to docs/) must not leave a link to a
 * file or an anchor that is no longer there.
 */
const REPO = new URL('../../', import.meta.url).pathname;
const DOCS = readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
const FILES = ['README.md', 'SECURITY.md', ...DOCS, 'examples/stream/README.md'];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const text = readFileSync(join(REPO, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Every local link of a file: [text](target) outside code, not http(s) or mailto. */
function localLinks(file: string): string[] {
  const text = readFileSync(join(REPO, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z]+:/i.test(t));
}

describe('links between the README, SECURITY.md and docs/', () => {
  it.each(FILES)('%s: every local link names a file that exists, and a heading it has', (file) => {
    const broken: string[] = [];
    for (const target of localLinks(file)) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path ? relative(REPO, join(REPO, dirname(file), decodeURIComponent(path))) : file;
      if (!existsSync(join(REPO, resolved))) {
        broken.push(`${target}: no file ${resolved}`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && statSync(join(REPO, resolved)).isFile() && !anchors(resolved).has(anchor)) {
        broken.push(`${target}: ${resolved} has no heading #${anchor}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
