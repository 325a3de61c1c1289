/**
 * Cuts a model's streamed text into sentences to speak, as it arrives: a sentence ends at
 * `.`, `!`, `?` or `…` (closing quotes and brackets stay with it) followed by white space, at
 * a full-width `。！？`, or at a line break. Not at an abbreviation (`Dr.`, `e.g.`), an initial (`J. Smith`), or a
 * number (`3.5`: the point is not followed by a space); a mark at the very end of what has
 * arrived waits for the next piece. A clause that runs past `maxChars` without one is cut
 * at its last comma, semicolon, colon or dash (else its last space), so speech never waits
 * long for a period.
 */

export interface SentenceSplitter {
  /** Adds a piece of text; answers the sentences it completed, in order. */
  push(text: string): string[];
  /** The end of the text: what is left, as a last sentence (undefined when nothing is). */
  flush(): string | undefined;
  /** Drops what is left unsaid (a model round that turned into tool calls). */
  discard(): void;
}

export const DEFAULT_MAX_SENTENCE_CHARS = 180;

const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'vs', 'etc', 'e.g', 'i.e', 'cf', 'approx', 'inc', 'ltd', 'co', 'corp',
  'fig', 'figs', 'vol', 'p', 'pp', 'ca', 'dept', 'est', 'u.s', 'u.k', 'a.m', 'p.m', 'jan', 'feb', 'mar', 'apr',
  'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun',
]);

const ENDS = new Set(['.', '!', '?', '…', '。', '！', '？']);
/** Full-width marks (Chinese, Japanese) end a sentence with no space after them. */
const WIDE_ENDS = new Set(['。', '！', '？']);
const CLOSERS = new Set(['"', "'", ')', ']', '”', '’', '»', '」', '』', '）']);
const CLAUSE = /[,;:—–](?=\s)/g;

/** Markdown a voice should not read out: emphasis marks, code ticks, heading and bullet marks. */
export function speakable(text: string): string {
  return text
    .replace(/[*`]+/g, '')
    .replace(/^\s*(?:#{1,6}|[-•]|\d+\.)\s+/gm, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Whether the `.` at `at` ends an abbreviation, an initial, or a list item's number at the start of a line (`2. `). */
function abbreviated(text: string, at: number): boolean {
  if (/(?:^|\n)[ \t]*\d{1,3}$/.test(text.slice(0, at))) return true;
  let start = at;
  while (start > 0 && /[\p{L}.]/u.test(text[start - 1]!)) start--;
  const word = text.slice(start, at);
  if (word.length === 1 && /\p{Lu}/u.test(word)) return true;
  return ABBREVIATIONS.has(word.toLowerCase());
}

/** The index just after the first sentence's end in `text`, or -1 when no complete sentence is there yet. */
function sentenceEnd(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\n') {
      if (text.slice(0, i).trim() !== '') return i + 1;
      continue;
    }
    if (!ENDS.has(c)) continue;
    let j = i + 1;
    while (j < text.length && (ENDS.has(text[j]!) || CLOSERS.has(text[j]!))) j++;
    if (j >= text.length) return -1; // what follows decides: wait for it
    if (WIDE_ENDS.has(c)) return j;
    if (!/\s/.test(text[j]!)) {
      i = j - 1;
      continue;
    }
    if (c === '.' && j === i + 1 && abbreviated(text, i)) continue;
    return j;
  }
  return -1;
}

/** Where to cut a long clause: after its last clause mark, else at its last space, within `max`. */
function clauseCut(text: string, max: number): number {
  const window = text.slice(0, max);
  let cut = -1;
  for (const m of window.matchAll(CLAUSE)) cut = m.index + 1;
  if (cut > 0) return cut;
  const space = window.lastIndexOf(' ');
  return space > 0 ? space : max;
}

export function sentenceSplitter(maxChars = DEFAULT_MAX_SENTENCE_CHARS): SentenceSplitter {
  let buffer = '';
  const take = (end: number, out: string[]) => {
    const sentence = speakable(buffer.slice(0, end));
    buffer = buffer.slice(end);
    if (sentence !== '') out.push(sentence);
  };
  return {
    push(text) {
      buffer += text;
      const out: string[] = [];
      for (;;) {
        const end = sentenceEnd(buffer);
        if (end > 0) take(end, out);
        else if (buffer.trimStart().length > maxChars) {
          buffer = buffer.trimStart();
          take(clauseCut(buffer, maxChars), out);
        } else break;
      }
      return out;
    },
    flush() {
      const rest = speakable(buffer);
      buffer = '';
      return rest === '' ? undefined : rest;
    },
    discard() {
      buffer = '';
    },
  };
}
