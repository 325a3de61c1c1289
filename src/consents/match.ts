/**
 * Does a transcript say the consent statement? Pure functions over words. The recogniser
 * (pocketsphinx) gets names, rare words and the passcode partly wrong ("pencil" heard as
 * "cancel", "passcode" as "pass code", "avatar" as "and butter"), so words are compared with
 * tolerance: by edit distance on phones from the CMU dictionary for English (similar phones
 * cost half), on letters otherwise. docs/speech-checks.md has the measurements the limits
 * come from.
 */
import { cmudict, editDistance, substitution, wordsOf } from '../footage/phones.ts';

export interface ConsentMatch {
  /** 0..1: share of the statement's words recovered in order, tolerant. */
  similarity: number;
  nameFound: boolean;
  /** One per word of the name. */
  nameWordsFound: boolean[];
  /** One per passcode word. */
  passcodeFound: boolean[];
  passed: boolean;
  details: string;
}

/**
 * similarity: the least share of the statement's words the transcript must hold in order.
 * word: the largest normalised edit distance at which two words count as the same.
 * name / passcode: the same, for the name's and the passcode's words looked for where they
 * should be (names are rarely in the recogniser's vocabulary, so it is looser).
 */
export const MATCH_LIMITS = { similarity: 0.6, word: 0.34, name: 0.34, passcode: 0.34 };

/** A word (or words run together) as sound units: every pronunciation in phones when each word is in the dictionary, else its letters. */
function unitsOf(words: readonly string[], phones: boolean): string[][] {
  const dict = phones ? cmudict() : null;
  const prons = dict ? words.map((w) => dict.get(w)) : [];
  if (dict && prons.every((p) => p !== undefined)) {
    // Every combination of the words' pronunciations (few: names and common words have 1-3).
    return prons.reduce<string[][]>((acc, variants) => acc.flatMap((head) => variants!.map((v) => [...head, ...v])), [[]]).slice(0, 16);
  }
  return [[...words.join('')]];
}

/** 0 (same) .. 1 (nothing alike): the distance of `a` to `b` per unit of `a`, the best over pronunciations; `within`: to the best part of `b`. */
function distance(a: readonly string[], b: readonly string[], phones: boolean, within = false): number {
  let best = Infinity;
  const ua = unitsOf(a, phones);
  const ub = unitsOf(b, phones);
  // Compare like with like: when only one side has phones, both go by letters.
  const [xa, xb] = ua[0]!.every((u) => u.length === 1) !== ub[0]!.every((u) => u.length === 1) ? [[[...a.join('')]], [[...b.join('')]]] : [ua, ub];
  for (const pa of xa) for (const pb of xb) {
    const d = editDistance(pa, pb, within) / (within ? pa.length : Math.max(pa.length, pb.length));
    if (d < best) best = d;
  }
  return best;
}

// ---- the alignment ---------------------------------------------------------------------

interface Alignment {
  /** The statement's words matched, by index: the transcript words [from, to) they matched. */
  matched: Map<number, { from: number; to: number }>;
}

/**
 * The most statement words matched in order (a longest common subsequence where words are
 * equal within `MATCH_LIMITS.word`; a word may match two transcript words run together, and
 * two statement words one transcript word, as the recogniser splits and joins them).
 */
export function align(s: readonly string[], t: readonly string[], phones: boolean): Alignment {
  const known = new Map<string, number>();
  const d = (a: string[], b: string[]) => {
    const key = `${a.join(' ')}|${b.join(' ')}`;
    let v = known.get(key);
    if (v === undefined) known.set(key, (v = distance(a, b, phones)));
    return v;
  };
  // Words run together count only when closer than either word alone: otherwise a short word
  // ("of", "a") rides along for free beside one that matches by itself ("owner of" ~ "owner").
  const same = (a: string[], b: string[]) => {
    const whole = d(a, b);
    if (whole > MATCH_LIMITS.word) return false;
    if (a.length === 2) return whole < Math.min(d([a[0]!], b), d([a[1]!], b));
    if (b.length === 2) return whole < Math.min(d(a, [b[0]!]), d(a, [b[1]!]));
    return true;
  };
  type Step = 'skip-s' | 'skip-t' | '1-1' | '1-2' | '2-1';
  const score: number[][] = Array.from({ length: s.length + 1 }, () => new Array<number>(t.length + 1).fill(0));
  const step: Step[][] = Array.from({ length: s.length + 1 }, () => new Array<Step>(t.length + 1).fill('skip-s'));
  for (let i = 1; i <= s.length; i++) {
    for (let j = 0; j <= t.length; j++) {
      let best = score[i - 1]![j]!;
      let how: Step = 'skip-s';
      const offer = (v: number, h: Step) => { if (v > best) { best = v; how = h; } };
      if (j >= 1) offer(score[i]![j - 1]!, 'skip-t');
      if (j >= 1 && same([s[i - 1]!], [t[j - 1]!])) offer(score[i - 1]![j - 1]! + 1, '1-1');
      if (j >= 2 && same([s[i - 1]!], [t[j - 2]!, t[j - 1]!])) offer(score[i - 1]![j - 2]! + 1, '1-2');
      if (i >= 2 && j >= 1 && same([s[i - 2]!, s[i - 1]!], [t[j - 1]!])) offer(score[i - 2]![j - 1]! + 2, '2-1');
      score[i]![j] = best;
      step[i]![j] = how;
    }
  }
  const matched = new Map<number, { from: number; to: number }>();
  for (let i = s.length, j = t.length; i > 0;) {
    const how = j === 0 ? 'skip-s' : step[i]![j]!;
    if (how === 'skip-s') i--;
    else if (how === 'skip-t') j--;
    else if (how === '1-1') { matched.set(i - 1, { from: j - 1, to: j }); i--; j--; }
    else if (how === '1-2') { matched.set(i - 1, { from: j - 2, to: j }); i--; j -= 2; }
    else { matched.set(i - 1, { from: j - 1, to: j }); matched.set(i - 2, { from: j - 1, to: j }); i -= 2; j--; }
  }
  return { matched };
}

/** Where `part` sits in `words` (first occurrence), or -1. */
function indexOfRun(words: readonly string[], part: readonly string[]): number {
  for (let i = 0; i + part.length <= words.length; i++) if (part.every((w, k) => words[i + k] === w)) return i;
  return -1;
}

/** Every pronunciation of each word (its letters when it has none, or when `phones` is off). */
function variantsOf(word: string, phones: boolean): string[][] {
  const dict = phones ? cmudict() : null;
  return dict?.get(word) ?? [[...word]];
}

/**
 * The distance of each of `words` (in order, as said together) to the best-fitting part of
 * `heard`: one alignment of the words' sounds run together, each word charged for the edits on
 * its own sounds, per sound. Aligning the run as a whole copes with the recogniser moving word
 * boundaries ("market silver" heard as "markets over").
 */
function runDistances(words: readonly string[], heardWords: readonly string[], phones: boolean): number[] {
  const own = words.map((w) => variantsOf(w, phones));
  const gap = heardWords.map((w) => variantsOf(w, phones));
  // Like with like: when a word on either side has no phones, both sides go by letters.
  const letters = (v: string[][]) => v[0]!.every((u) => u.length === 1);
  if (phones && [...own, ...gap].some(letters) && ![...own, ...gap].every(letters)) return runDistances(words, heardWords, false);
  const combos = (lists: string[][][]): { units: string[]; owner: number[] }[] =>
    lists.reduce<{ units: string[]; owner: number[] }[]>(
      (acc, variants, w) => acc.flatMap((c) => variants.map((v) => ({ units: [...c.units, ...v], owner: [...c.owner, ...v.map(() => w)] }))).slice(0, 16),
      [{ units: [], owner: [] }],
    );
  let best: number[] | undefined;
  let bestTotal = Infinity;
  for (const a of combos(own)) {
    for (const { units: b } of combos(gap)) {
      const n = a.units.length;
      const m = b.length;
      // Semi-global: the run may start and end anywhere in `b`.
      const cost = Array.from({ length: n + 1 }, (_, i) => new Array<number>(m + 1).fill(i));
      for (let j = 0; j <= m; j++) cost[0]![j] = 0;
      for (let i = 1; i <= n; i++) {
        for (let j = 1; j <= m; j++) {
          cost[i]![j] = Math.min(cost[i - 1]![j]! + 1, cost[i]![j - 1]! + 1, cost[i - 1]![j - 1]! + substitution(a.units[i - 1]!, b[j - 1]!));
        }
      }
      let j = 0;
      for (let k = 1; k <= m; k++) if (cost[n]![k]! < cost[n]![j]!) j = k;
      if (cost[n]![j]! >= bestTotal) continue;
      bestTotal = cost[n]![j]!;
      const charged = new Array<number>(words.length).fill(0);
      for (let i = n; i > 0;) {
        const here = cost[i]![j]!;
        const w = a.owner[i - 1]!;
        if (j > 0 && here === cost[i - 1]![j - 1]! + substitution(a.units[i - 1]!, b[j - 1]!)) { charged[w]! += here - cost[i - 1]![j - 1]!; i--; j--; }
        else if (here === cost[i - 1]![j]! + 1) { charged[w]! += 1; i--; }
        else { charged[w]! += 1; j--; }
      }
      best = charged.map((c, w) => c / a.owner.filter((o) => o === w).length);
    }
  }
  return best ?? words.map(() => 1);
}

/**
 * Whether each word of a run of the statement (the name, the passcode: at `at` in `s`, or -1
 * when the statement does not hold it) is in the transcript: looked for between the transcript
 * words the statement's words around the run matched (the whole transcript when `at` is -1).
 */
function heardRun(run: readonly string[], at: number, s: readonly string[], t: readonly string[], a: Alignment, phones: boolean, limit: number): { found: boolean; distance: number }[] {
  let from = 0;
  let to = t.length;
  if (at >= 0) {
    for (let i = at - 1; i >= 0; i--) { const m = a.matched.get(i); if (m) { from = m.to; break; } }
    for (let i = at + run.length; i < s.length; i++) { const m = a.matched.get(i); if (m) { to = m.from; break; } }
  }
  const gap = t.slice(from, Math.max(from, to));
  if (gap.length === 0 || run.length === 0) return run.map(() => ({ found: false, distance: 1 }));
  return runDistances(run, gap, phones).map((d) => ({ found: d <= limit, distance: d }));
}

/** transcript vs the statement as it should be spoken (name and passcode filled in). */
export function matchConsent(
  transcript: string,
  expected: { statement: string; name: string; passcode: readonly string[]; language: string },
): ConsentMatch {
  const phones = expected.language.toLowerCase() === 'english';
  const s = wordsOf(expected.statement);
  const t = wordsOf(transcript);
  const a = align(s, t, phones);
  const similarity = s.length ? Math.round((a.matched.size / s.length) * 1000) / 1000 : 0;

  const nameWords = wordsOf(expected.name);
  const nameAt = indexOfRun(s, nameWords);
  const nameChecks = heardRun(nameWords, nameAt, s, t, a, phones, MATCH_LIMITS.name);
  const nameFound = nameWords.length > 0 && nameChecks.every((c) => c.found);

  const codeWords = expected.passcode.map((w) => wordsOf(w).join(''));
  const codeAt = indexOfRun(s, codeWords);
  const codeChecks = heardRun(codeWords, codeAt, s, t, a, phones, MATCH_LIMITS.passcode);
  const passcodeFound = codeChecks.map((c) => c.found);

  const passed = similarity >= MATCH_LIMITS.similarity && nameFound && passcodeFound.every(Boolean) && passcodeFound.length > 0;
  const said = (kind: string, words: string[], checks: { found: boolean; distance: number }[], limit: number) =>
    `${kind} ${words.map((w, i) => `'${w}' ${checks[i]!.found ? 'heard' : 'NOT heard'} (${checks[i]!.distance.toFixed(2)})`).join(', ')} (distance at most ${limit})`;
  const details = [
    `${a.matched.size} of ${s.length} words of the statement heard in order (similarity ${similarity.toFixed(2)}, at least ${MATCH_LIMITS.similarity})`,
    said('name', nameWords, nameChecks, MATCH_LIMITS.name),
    said('passcode', codeWords, codeChecks, MATCH_LIMITS.passcode),
  ].join('; ');
  return { similarity, nameFound, nameWordsFound: nameChecks.map((c) => c.found), passcodeFound, passed, details };
}

// ---- the weaker check -------------------------------------------------------------------

/** Syllables read aloud per second: slow careful reading to fast speech, over every language of the consents. */
export const SPEECH_RATE = { slowest: 2, fastest: 8 };

/** An estimate of the syllables of `text`: groups of vowel letters per word (at least one per word). */
export function syllablesOf(text: string): number {
  return wordsOf(text).reduce((sum, word) => {
    // An accented í or ú beside another vowel is a syllable of its own (Spanish, Portuguese: "río", "baú").
    const plain = word.replace(/[íú]/g, ' i ').normalize('NFD').replace(/\p{M}/gu, '');
    return sum + Math.max(1, plain.match(/[aeiouyæøœå]+/g)?.length ?? 0);
  }, 0);
}

/** The weaker check for a language without a recogniser: is `speechSec` plausible for reading `statement` aloud (syllable count estimate × a rate band)? */
export function plausibleSpeechLength(statement: string, speechSec: number, _language: string): { expectedSec: [number, number]; plausible: boolean } {
  const syllables = syllablesOf(statement);
  const expectedSec: [number, number] = [Math.round((syllables / SPEECH_RATE.fastest) * 10) / 10, Math.round((syllables / SPEECH_RATE.slowest) * 10) / 10];
  return { expectedSec, plausible: speechSec >= expectedSec[0] && speechSec <= expectedSec[1] };
}
