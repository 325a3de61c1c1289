/**
 * The words a refused or reviewed consent names as not heard: the surname alone when only it
 * was missed, the whole name when all of it was, and each passcode word missed.
 */
import { describe, expect, it } from 'vitest';
import { missedWords } from '../../src/consents/verify.ts';

const code = ['garden', 'pencil', 'river'];
const found = (name: boolean[], passcode: boolean[]) => ({ nameWordsFound: name, passcodeFound: passcode });

describe('missedWords', () => {
  it('names only the surname when only the surname was missed', () => {
    expect(missedWords('Maria Lopez', code, found([true, false], [true, true, true]))).toEqual(["'Lopez' of the name 'Maria Lopez'"]);
  });

  it('names the surname and the passcode words missed with it', () => {
    const missed = missedWords('Anna Miller', code, found([true, false], [true, false, false]));
    expect(missed).toEqual(["'Miller' of the name 'Anna Miller'", "the passcode words 'pencil', 'river'"]);
    expect(missed.join(' and ')).not.toMatch(/^the name /);
  });

  it('names the whole name when none of it was heard, and a single passcode word', () => {
    expect(missedWords('Peter Brown', code, found([false, false], [true, true, false]))).toEqual(["the name 'Peter Brown'", "the passcode word 'river'"]);
    expect(missedWords('Cher', code, found([false], [true, true, true]))).toEqual(["the name 'Cher'"]);
  });

  it('splits the name as the matcher does (apostrophes kept, hyphens split) and says nothing when all was heard', () => {
    expect(missedWords("Jean-Luc O'Brien", code, found([true, true, false], [true, true, true]))).toEqual(["'O'Brien' of the name 'Jean-Luc O'Brien'"]);
    expect(missedWords('Maria Lopez', code, found([true, true], [true, true, true]))).toEqual([]);
  });
});
