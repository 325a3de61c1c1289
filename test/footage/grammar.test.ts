/**
 * The grammar pass's pieces: the JSGF of the statement with its name and passcode slots, the
 * dictionary it needs (names the CMU dictionary lacks by letter rules), and reading the slots
 * back from a hypothesis.
 */
import { describe, expect, it } from 'vitest';
import { letterPhones, namePronunciations, pronounce, slotGrammar, slotsHeard } from '../../src/footage/recognition/grammar.ts';
import { parseBatchHypothesis } from '../../src/footage/recognition/pocketsphinx.ts';

const statement = 'I, Maria Lopez, agree. My passcode is garden pencil river.';
const expected = { statement, name: 'Maria Lopez', passcode: ['garden', 'pencil', 'river'] };

describe('slotGrammar', () => {
  it('fixes the statement words and makes each name and passcode word a choice of the expected word and the others', () => {
    const g = slotGrammar(expected, { name: ['john', 'maria', 'smith'], passcode: ['garden', 'window', 'orange'] });
    expect(g.jsgf).toContain('public <consent> = i ( maria | john | smith ) ( lopez | john | maria | smith ) agree my passcode is ( garden | window | orange ) ( pencil | garden | window | orange ) ( river | garden | window | orange );');
    expect(g.nameAt).toEqual([1, 2]);
    expect(g.passcodeAt).toEqual([7, 8, 9]);
    // Every word of the grammar has a pronunciation: dictionary words as the dictionary has them,
    // "passcode" as two dictionary words, a name it lacks by letter rules.
    const lines = g.dict.trim().split('\n');
    for (const w of ['i', 'maria', 'lopez', 'agree', 'my', 'passcode', 'is', 'garden', 'pencil', 'river', 'john', 'smith', 'window', 'orange']) {
      expect(lines.some((l) => l.startsWith(`${w} `)), w).toBe(true);
    }
    expect(lines).toContain('passcode P AE S K OW D');
  });

  it('reads the slots back: the expected word in its place is heard, another word is not', () => {
    const g = slotGrammar(expected, { name: ['john'], passcode: ['window'] });
    expect(slotsHeard(g, 'i maria lopez agree my passcode is garden pencil river')).toEqual({ nameWordsFound: [true, true], passcodeFound: [true, true, true] });
    expect(slotsHeard(g, 'i maria john agree my passcode is garden window river')).toEqual({ nameWordsFound: [true, false], passcodeFound: [true, false, true] });
    expect(slotsHeard(g, '')).toEqual({ nameWordsFound: [false, false], passcodeFound: [false, false, false] });
  });

  it('gives a name with an apostrophe a token JSGF accepts', () => {
    const g = slotGrammar({ statement: "I, Sean O'Neil, agree. My passcode is garden pencil river.", name: "Sean O'Neil", passcode: expected.passcode }, { name: ['john'], passcode: ['window'] });
    expect(g.jsgf).not.toContain("'");
    const token = g.jsgf.match(/\( (w_[0-9a-f_]+) \|/)![1]!;
    expect(g.dict).toContain(`${token} `);
    expect(slotsHeard(g, `i sean ${token} agree my passcode is garden pencil river`).nameWordsFound).toEqual([true, true]);
  });

  it('leaves out of a slot the others that sound like its expected word, and only those', () => {
    // "sophia" is "sofia" to the recogniser, "thomas" nearly "tomas": as competitors they only
    // turned correct readings into misses (bench/consent-recognition.ts).
    const g = slotGrammar({ statement: 'I, Sofia Tomas, agree. My passcode is garden pencil river.', name: 'Sofia Tomas', passcode: expected.passcode }, { name: ['sophia', 'thomas', 'john'], passcode: ['garden', 'gardens', 'window'] });
    expect(g.jsgf).toContain('i ( sofia | thomas | john ) ( tomas | sophia | john ) agree');
    expect(g.jsgf).toContain('is ( garden | window ) ( pencil | garden | gardens | window )');
  });

  it("gives a name the dictionary's and the letter rules' pronunciations", () => {
    expect(namePronunciations('nina')).toEqual(expect.arrayContaining(['N IY N AH', 'N IH N AA', 'N AY N AA']));
    const g = slotGrammar({ statement: 'I, Nina Lopez, agree. My passcode is garden pencil river.', name: 'Nina Lopez', passcode: expected.passcode }, { name: ['john'], passcode: ['window'] });
    expect(g.dict).toContain('nina N IY N AH');
    expect(g.dict).toContain('nina(2) N IH N AA');
    // Only the name's words get them: a passcode word keeps the dictionary's.
    expect(g.dict.split('\n').filter((l) => l.startsWith('garden'))).toHaveLength(1);
  });

  it('refuses a statement that does not hold the name or the passcode', () => {
    expect(() => slotGrammar({ ...expected, name: 'John Smith' }, { name: [], passcode: [] })).toThrow(/name and the passcode/);
  });
});

describe('pronunciations', () => {
  it('spells out names the dictionary lacks by letter rules', () => {
    expect(letterPhones('kowalski')).toBe('K OW W AA L S K IY');
    expect(letterPhones('schmidt')).toBe('SH M IH D T');
    expect(letterPhones('nakamura')).toBe('N AA K AA M UW R AA');
    expect(pronounce('miller')[0]).toMatch(/^M IH L ER/);
  });

  it('reads a pocketsphinx_batch hypothesis line', () => {
    expect(parseBatchHypothesis('my passcode is garden window river (speech -2997)\n')).toBe('my passcode is garden window river');
    expect(parseBatchHypothesis(' (speech -12)\n')).toBe('');
    expect(parseBatchHypothesis('')).toBe('');
  });
});
