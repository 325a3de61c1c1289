/**
 * The consent languages: the interface's 18, each a statement with [user name] and a passcode
 * placeholder, at least 500 passcode words, and docs/consent-texts.md generated from them.
 */
import { describe, expect, it } from 'vitest';
import { CONSENT_LANGUAGES, findLanguage } from '../../src/consents/languages/index.ts';
import { MIN_PASSCODE_WORDS, problemsOf } from '../../src/consents/languages/types.ts';
import { drawPasscode, statementOf } from '../../src/consents/create.ts';
import { consentTextsDoc, DOC_PATH } from '../../scripts/consent-texts-doc.ts';
import { readFileSync } from 'node:fs';

const INTERFACE_LANGUAGES = ['Dutch', 'Turkish', 'Swedish', 'Indonesian', 'Filipino', 'Czech', 'Romanian', 'Danish', 'Malay', 'Slovak', 'Croatian', 'English', 'Polish', 'German', 'Spanish', 'French', 'Italian', 'Portuguese'];

describe('consent languages', () => {
  it('are exactly the interface\'s 18, by lower-case name, found in any case', () => {
    expect(CONSENT_LANGUAGES.map((l) => l.name)).toEqual(INTERFACE_LANGUAGES.map((n) => n.toLowerCase()));
    for (const name of INTERFACE_LANGUAGES) expect(findLanguage(name)?.name).toBe(name.toLowerCase());
    expect(findLanguage('english')?.code).toBe('en');
    expect(findLanguage('ENGLISH')?.code).toBe('en');
    expect(findLanguage('Englisch')).toBeUndefined();
    expect(findLanguage('en')).toBeUndefined();
  });

  for (const lang of CONSENT_LANGUAGES) {
    it(`${lang.name}: a statement with [user name] and {passcode}, ${MIN_PASSCODE_WORDS}+ distinct easy words, none of the statement's`, () => {
      expect(problemsOf(lang)).toEqual([]);
      expect(lang.words.length).toBeGreaterThanOrEqual(MIN_PASSCODE_WORDS);
      expect(lang.template).toContain('mimic');
      // Three different words of the list, drawn anew each time.
      const seen = new Set<string>();
      for (let i = 0; i < 20; i++) {
        const code = drawPasscode(lang);
        expect(new Set(code).size).toBe(3);
        for (const w of code) expect(lang.words).toContain(w);
        const text = statementOf(lang, code);
        expect(text).toContain('[user name]');
        expect(text).toContain(code.join(' '));
        expect(text).not.toContain('{passcode}');
        seen.add(code.join(' '));
      }
      expect(seen.size).toBeGreaterThan(15);
    });
  }

  it('a passcode repeats a word never, even when the generator does', () => {
    const lang = findLanguage('english')!;
    const picks = [4, 4, 4, 7, 7, 9];
    expect(drawPasscode(lang, () => picks.shift()!)).toEqual([lang.words[4], lang.words[7], lang.words[9]]);
  });

  it('docs/consent-texts.md is generated from the languages and up to date', () => {
    expect(readFileSync(DOC_PATH, 'utf8')).toBe(consentTextsDoc());
  });
});
