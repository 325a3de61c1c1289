/**
 * One language a consent can be read in: the statement (written for mimic, its meaning
 * reviewed against the English one; docs/consent-texts.md shows each with its back
 * translation) and the words passcodes are drawn from.
 */
export interface ConsentLanguage {
  /** The lower-case English name the API takes (`POST /consents {language}`). */
  name: string;
  /** ISO 639-1 code (`fil` for Filipino, which has none). */
  code: string;
  /** The espeak-ng voice that reads it (test videos, speech length estimates); null when espeak-ng has none. */
  espeakVoice: string | null;
  /**
   * The statement, with `[user name]` exactly once (the person says their name there) and
   * `{passcode}` exactly once (replaced by three words of `words`, separated by spaces).
   */
  template: string;
  /** What the statement says, in English, word for word as far as the language allows. */
  backTranslation: string;
  /** How the text and the words were checked (who, against what), and anything doubtful. */
  reviewNote: string;
  /**
   * At least 500 common, easily pronounced words: lower case, letters of the language only
   * (no spaces, digits, hyphens or apostrophes), 3 to 10 letters, Unicode NFC, no duplicates,
   * no proper names, nothing rude, sad or sensitive, no two that sound alike, none of the
   * statement's own words.
   */
  words: readonly string[];
}

/** The least number of passcode words a language must have. */
export const MIN_PASSCODE_WORDS = 500;

/** What is wrong with a language's entry (empty when nothing): the tests and the authors' check. */
export function problemsOf(lang: ConsentLanguage): string[] {
  const problems: string[] = [];
  const count = (s: string, part: string) => s.split(part).length - 1;
  if (!/^[a-z]+$/.test(lang.name)) problems.push(`name '${lang.name}' is not lower-case letters`);
  if (count(lang.template, '[user name]') !== 1) problems.push('template must hold [user name] exactly once');
  if (count(lang.template, '{passcode}') !== 1) problems.push('template must hold {passcode} exactly once');
  if (lang.template !== lang.template.normalize('NFC')) problems.push('template is not NFC');
  if (!lang.backTranslation.trim()) problems.push('backTranslation is empty');
  if (!lang.reviewNote.trim()) problems.push('reviewNote is empty');
  if (lang.words.length < MIN_PASSCODE_WORDS) problems.push(`only ${lang.words.length} words (at least ${MIN_PASSCODE_WORDS})`);
  const seen = new Set<string>();
  const statementWords = new Set(lang.template.toLocaleLowerCase(lang.code).split(/[^\p{L}]+/u).filter(Boolean));
  for (const w of lang.words) {
    if (seen.has(w)) problems.push(`'${w}' appears twice`);
    seen.add(w);
    if (w !== w.normalize('NFC')) problems.push(`'${w}' is not NFC`);
    if (!/^\p{Ll}{3,10}$/u.test(w)) problems.push(`'${w}' is not 3 to 10 lower-case letters`);
    if (statementWords.has(w)) problems.push(`'${w}' is a word of the statement`);
  }
  return problems;
}
