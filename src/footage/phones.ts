/**
 * Words and their sounds, for comparing what a recogniser heard with what should have been
 * said: words of a text, pronunciations from the CMU dictionary pocketsphinx ships, and edit
 * distances on phones where similar phones cost half (the consent matcher and the slot
 * grammar of the recogniser both use them).
 */
import { readFileSync } from 'node:fs';

export const CMUDICT_PATH = '/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict';

/** Lower-case words of `text` (letters, digits and inner apostrophes), NFC. */
export function wordsOf(text: string): string[] {
  return text.normalize('NFC').toLowerCase().match(/[\p{L}\p{N}]+(?:'[\p{L}]+)*/gu) ?? [];
}

let dictionary: Dictionary | null | undefined;
let dictionaryPath = CMUDICT_PATH;

/** Uses another CMU dictionary file (tests; a different install); null turns phones off. */
export function useDictionary(path: string | null): void {
  dictionaryPath = path ?? '';
  dictionary = path ? undefined : null;
}

/** Pronunciations, parsed when a word is first looked up (parsing all 135,000 up front blocks the event loop for seconds). */
export class Dictionary {
  private readonly parsed = new Map<string, string[][]>();
  constructor(private readonly raw: Map<string, string[]>) {}
  get(word: string): string[][] | undefined {
    let found = this.parsed.get(word);
    if (found) return found;
    const lines = this.raw.get(word);
    if (!lines) return undefined;
    // ER is a schwa and an R run together: recognisers and speakers split it ("maria" M ER IY AH heard as "mario" M AA R IY OW).
    found = lines.map((l) => l.trim().split(/\s+/).flatMap((p) => { const ph = p.replace(/\d/g, ''); return ph === 'ER' ? ['AH', 'R'] : [ph]; }));
    this.parsed.set(word, found);
    return found;
  }
}

/** The CMU dictionary (word → pronunciations, ARPAbet without stress), read on first use; null when the file is absent. */
export function cmudict(): Dictionary | null {
  if (dictionary !== undefined) return dictionary;
  let text: string;
  try {
    text = readFileSync(dictionaryPath, 'utf8');
  } catch {
    return (dictionary = null);
  }
  const raw = new Map<string, string[]>();
  for (let at = 0; at < text.length;) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const space = text.indexOf(' ', at);
    if (space > at && space < end) {
      let word = text.slice(at, space);
      const variant = word.indexOf('(');
      if (variant > 0) word = word.slice(0, variant);
      const phones = text.slice(space + 1, end);
      const known = raw.get(word);
      if (known) known.push(phones);
      else raw.set(word, [phones]);
    }
    at = end + 1;
  }
  return (dictionary = new Dictionary(raw));
}

const CLASSES: Record<string, string> = {};
for (const [cls, phones] of Object.entries({
  vowel: 'AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW',
  stop: 'P B T D K G',
  fricative: 'F V TH DH S Z SH ZH HH CH JH',
  nasal: 'M N NG',
  approximant: 'L R W Y',
})) for (const p of phones.split(' ')) CLASSES[p] = cls;
const VOWEL_LETTERS = /[aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿœěůąęų]/;

/** Substituting phone (or letter) `a` for `b`: free when equal, half within a class of similar sounds, else 1. */
export function substitution(a: string, b: string): number {
  if (a === b) return 0;
  if (a.length === 1 && b.length === 1) return VOWEL_LETTERS.test(a) && VOWEL_LETTERS.test(b) ? 0.5 : 1;
  const ca = CLASSES[a];
  return ca !== undefined && ca === CLASSES[b] ? 0.5 : 1;
}

/** Edit distance of `a` to `b` (global), or to the best-fitting part of `b` (`within`). */
export function editDistance(a: readonly string[], b: readonly string[], within = false): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => (within ? 0 : j));
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + substitution(a[i - 1]!, b[j - 1]!));
    }
    prev = row;
  }
  return within ? Math.min(...prev) : prev[b.length]!;
}

/** 0 (same) .. 1 (nothing alike): the edit distance of two phone strings per phone of the longer (costs as in `substitution`). */
export function phoneDistance(a: readonly string[], b: readonly string[]): number {
  return editDistance(a, b) / Math.max(a.length, b.length, 1);
}
