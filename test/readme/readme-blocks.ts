/**
 * The runnable shell blocks of the README and of the docs/ pages its walk-throughs moved to:
 * a fenced `sh` block right after a line `<!-- readme-test -->` is meant to run as written
 * against a live service; others are not (they start the service, need a GPU box, a model
 * server or minutes of footage).
 */
export interface ReadmeBlock {
  /** The markdown file, relative to the repository (`README.md`, `docs/tools.md`). */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
}

/** The mark before a runnable block. */
export const RUNNABLE_MARK = '<!-- readme-test -->';

export function runnableBlocks(markdown: string, file = 'README.md'): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length - 1; i++) {
    if (lines[i]!.trim() !== RUNNABLE_MARK) continue;
    if (lines[i + 1]!.trim() !== '```sh') throw new Error(`${file} line ${i + 1}: ${RUNNABLE_MARK} must stand right before a \`\`\`sh block`);
    const end = lines.indexOf('```', i + 2);
    if (end < 0) throw new Error(`${file} line ${i + 2}: unclosed block`);
    blocks.push({ file, line: i + 2, code: lines.slice(i + 2, end).join('\n') });
  }
  return blocks;
}

/** What earlier blocks printed that later ones refer to by a placeholder such as `anm_...`. */
export interface Seen {
  key?: string;
  ids: Map<string, string>;
}

export function remember(seen: Seen, output: string): void {
  const key = /"api_key":"(mimic_[^"]+)"/.exec(output)?.[1];
  if (key) seen.key = key;
  for (const m of output.matchAll(/"id":"([a-z]+)_([A-Za-z0-9]+)"/g)) seen.ids.set(m[1]!, `${m[1]}_${m[2]}`);
}

/** The block with its placeholders filled from what was seen, and the service's address. */
export function substitute(code: string, seen: Seen, base: string, extra: Record<string, string> = {}): string {
  let out = code.replace(/(?:http:\/\/)?localhost:8080/g, base);
  if (seen.key) out = out.replace(/mimic_\.\.\./g, seen.key);
  out = out.replace(/\b([a-z]+)_\.\.\./g, (whole, prefix: string) => seen.ids.get(prefix) ?? whole);
  for (const [placeholder, value] of Object.entries(extra)) out = out.split(placeholder).join(value);
  return out;
}
