/**
 * A second listen for the words mimic knows should be said: a JSGF grammar of the statement
 * in which every word of the name and of the passcode is a slot, the expected word or any of
 * hundreds of others (the language's passcode words, common names). Free transcription with
 * the general language model rarely proposes a name or an uncommon passcode word; here the
 * recogniser only has to choose, per slot, which of these it heard. Another name or another
 * passcode still loses: its words sound closer to one of the others than to the expected one
 * (bench/consent-recognition.ts measures both). The rest of the statement is fixed: the free
 * transcription already showed that it was said (similarity). Another word that sounds like
 * the expected one ("sophia" for "sofia") is no competitor: the recogniser cannot tell them
 * apart, so it would only turn correct readings into misses.
 */
import { readFileSync } from 'node:fs';
import { CMUDICT_PATH, phoneDistance, wordsOf } from '../phones.ts';

export interface ExpectedSpeech {
  /** The statement as it should be spoken (name and passcode in place). */
  statement: string;
  name: string;
  passcode: readonly string[];
}

export interface SlotGrammar {
  jsgf: string;
  /** `word PHONES` lines for every word of the grammar. */
  dict: string;
  /** Index in the hypothesis of each name word and each passcode word (the fixed words are always there). */
  nameAt: number[];
  passcodeAt: number[];
  nameWords: string[];
  passcodeWords: string[];
}

let pronunciations: Map<string, string[]> | undefined;

/** word → its pronunciations (`P AE S` ...) from pocketsphinx's CMU dictionary; read once. */
function cmu(): Map<string, string[]> {
  if (pronunciations) return pronunciations;
  const map = new Map<string, string[]>();
  let text = '';
  try {
    text = readFileSync(CMUDICT_PATH, 'utf8');
  } catch {
    // No dictionary: every word goes by letter rules.
  }
  for (const line of text.split('\n')) {
    const space = line.indexOf(' ');
    if (space <= 0) continue;
    const word = line.slice(0, space).replace(/\(\d+\)$/, '');
    const list = map.get(word);
    const phones = line.slice(space + 1).trim();
    if (list) list.push(phones);
    else map.set(word, [phones]);
  }
  return (pronunciations = map);
}

// Letter rules for a word the dictionary lacks (a name): rough, but a slot only has to sound
// closer to the expected name than to the other words.
const DIGRAPHS: [RegExp, string][] = [
  [/^sch/, 'SH'], [/^tch/, 'CH'], [/^ch/, 'CH'], [/^sh/, 'SH'], [/^th/, 'TH'], [/^ph/, 'F'], [/^ck/, 'K'], [/^ng/, 'NG'],
  [/^qu/, 'K W'], [/^gh/, 'G'], [/^wh/, 'W'], [/^ee/, 'IY'], [/^ea/, 'IY'], [/^oo/, 'UW'], [/^ou/, 'AW'], [/^ow(?![aeiou])/, 'OW'],
  [/^ai/, 'EY'], [/^ay/, 'EY'], [/^ei/, 'EY'], [/^ey/, 'EY'], [/^ie/, 'IY'], [/^oa/, 'OW'], [/^au/, 'AO'], [/^aw/, 'AO'],
  [/^oi/, 'OY'], [/^oy/, 'OY'], [/^eu/, 'OY'], [/^ue/, 'UW'],
];
const LETTERS: Record<string, string> = {
  a: 'AA', b: 'B', c: 'K', d: 'D', e: 'EH', f: 'F', g: 'G', h: 'HH', i: 'IH', j: 'JH', k: 'K', l: 'L', m: 'M', n: 'N',
  o: 'OW', p: 'P', q: 'K', r: 'R', s: 'S', t: 'T', u: 'UW', v: 'V', w: 'W', x: 'K S', y: 'IY', z: 'Z',
};

/** ARPAbet phones of a word by letter rules (accents dropped), e.g. "lopez" → L OW P EH Z. */
export function letterPhones(word: string): string {
  let w = word.normalize('NFD').replace(/[^a-z]/gi, '').toLowerCase();
  const out: string[] = [];
  while (w) {
    const di = DIGRAPHS.find(([re]) => re.test(w));
    if (di) {
      out.push(di[1]);
      w = w.slice(di[0].exec(w)![0].length);
      continue;
    }
    const c = w[0]!;
    const next = w[1];
    if (c === 'c' && next && 'eiy'.includes(next)) out.push('S');
    else if (c === 'e' && w.length === 1 && out.length > 1) { /* a final silent e */ }
    else if (c === 'y' && out.length === 0) out.push('Y');
    else if ((c === 'i' || c === 'y') && w.length === 1) out.push('IY');
    else if (c === 'w' && next && !'aeiou'.includes(next)) out.push('UW');
    else if (w.length > 1 && c === next && !'aeiou'.includes(c)) { /* a doubled consonant: one sound */ }
    else if (LETTERS[c]) out.push(LETTERS[c]);
    w = w.slice(1);
  }
  return out.join(' ') || 'AH';
}

/** Pronunciations of a word: the dictionary's, two dictionary words run together ("passcode"), else letter rules. */
export function pronounce(word: string): string[] {
  const dict = cmu();
  const known = dict.get(word);
  if (known) return known;
  for (let i = 2; i <= word.length - 2; i++) {
    const a = dict.get(word.slice(0, i));
    const b = dict.get(word.slice(i));
    if (a && b) return [`${a[0]} ${b[0]}`];
  }
  return [letterPhones(word)];
}

/**
 * Pronunciations of a name word: the dictionary's and the letter rules' (a name is read both
 * ways: "nina" N IY N AH or N IH N AA), with an `i` also read IY or AY ("mila"), and each
 * also without its r before a consonant or at the end.
 */
export function namePronunciations(word: string): string[] {
  const letters = letterPhones(word);
  const prons = [...pronounce(word), letters, letters.replace(/\bIH\b/g, 'IY'), letters.replace(/\bIH\b/g, 'AY')];
  // Read without the r (British English: "bauer" B AW AH, "oscar" AA S K AH).
  return [...new Set([...prons, ...prons.map((p) => p.replace(/\bER\b/g, 'AH').replace(/ R(?= [^AEIOU]| ?$)/g, ''))])];
}

/** Others closer than this (phoneDistance) to the expected word sound like it, and are left out of its slot. */
export const SOUNDS_ALIKE = 0.45;

function soundsAlike(prons: readonly string[], other: string): boolean {
  return pronounce(other).some((o) => prons.some((p) => phoneDistance(p.split(' '), o.split(' ')) <= SOUNDS_ALIKE));
}

/** A token JSGF accepts: the word itself, or a placeholder for one with other characters (apostrophes). */
const tokenOf = (word: string): string => (/^[a-z0-9]+$/.test(word) ? word : `w_${[...word].map((c) => c.codePointAt(0)!.toString(16)).join('_')}`);

/**
 * The grammar: the statement's words in order, each name and passcode word a slot of the
 * expected word or one of `others` (deduplicated, the expected word left out of its own slot's others).
 */
export function slotGrammar(expected: ExpectedSpeech, others: { name: readonly string[]; passcode: readonly string[] }): SlotGrammar {
  const words = wordsOf(expected.statement);
  const nameWords = wordsOf(expected.name);
  const passcodeWords = expected.passcode.map((w) => wordsOf(w).join(''));
  const runAt = (run: string[]) => {
    for (let i = 0; i + run.length <= words.length; i++) if (run.every((w, j) => words[i + j] === w)) return i;
    return -1;
  };
  const nameStart = runAt(nameWords);
  const codeStart = runAt(passcodeWords);
  if (nameStart < 0 || codeStart < 0) throw new Error('the statement does not hold the name and the passcode');
  const vocabulary = new Set<string>(words);
  const rule = (list: readonly string[]) => [...new Set(list.map((w) => wordsOf(w).join('')).filter(Boolean))];
  const nameOthers = rule(others.name);
  const codeOthers = rule(others.passcode);
  for (const w of [...nameOthers, ...codeOthers]) vocabulary.add(w);
  const isName = (w: string) => nameWords.includes(w);
  const prons = (w: string) => (isName(w) ? namePronunciations(w) : pronounce(w));
  const slot = (word: string, pool: string[]) => {
    const own = prons(word);
    return `( ${[word, ...pool.filter((w) => w !== word && !soundsAlike(own, w))].map(tokenOf).join(' | ')} )`;
  };
  const parts = words.map((w, i) => {
    if (i >= nameStart && i < nameStart + nameWords.length) return slot(w, nameOthers);
    if (i >= codeStart && i < codeStart + passcodeWords.length) return slot(w, codeOthers);
    return tokenOf(w);
  });
  const jsgf = `#JSGF V1.0;\ngrammar consent;\npublic <consent> = ${parts.join(' ')};\n`;
  const dict = [...vocabulary].flatMap((w) => prons(w).map((p, k) => `${tokenOf(w)}${k ? `(${k + 1})` : ''} ${p}`)).join('\n') + '\n';
  return {
    jsgf, dict, nameWords, passcodeWords,
    nameAt: nameWords.map((_, j) => nameStart + j),
    passcodeAt: passcodeWords.map((_, j) => codeStart + j),
  };
}

/** Which name and passcode words the grammar's hypothesis holds in their slots (none when it found no path). */
export function slotsHeard(g: SlotGrammar, hypothesis: string): { nameWordsFound: boolean[]; passcodeFound: boolean[] } {
  const said = hypothesis.trim().split(/\s+/).filter(Boolean);
  const at = (i: number, word: string) => said[i] === tokenOf(word);
  return {
    nameWordsFound: g.nameWords.map((w, j) => at(g.nameAt[j]!, w)),
    passcodeFound: g.passcodeWords.map((w, j) => at(g.passcodeAt[j]!, w)),
  };
}
