/**
 * SSML for the embedded voices: `<speak>`, `<break>`, `<prosody rate>` (issue 9 point 1.4).
 *
 * The text is parsed here, once, into segments (text at a rate, or a pause) that an engine
 * speaks one by one with silence in between; the engines never see SSML. The parser is a
 * single left-to-right scan (no regular expression runs on the input), so its time is linear
 * in the input whatever a client sends.
 *
 * Understood: `<speak>` (optional root), `<break time="500ms|1.5s" strength="...">`,
 * `<prosody rate="x-slow|slow|medium|fast|x-fast|80%|+20%|-10%|1.2">` (nests: rates multiply),
 * `<sub alias="...">` (the alias is spoken), `<p>` and `<s>` (a sentence boundary).
 * Any other element is ignored and its text spoken (`<emphasis>`, `<say-as>`, `<voice>`,
 * `<phoneme>`, `<mark>`, ...), comments, `<?xml?>` and `<!DOCTYPE>` are skipped, entities
 * (`&amp;` `&lt;` `&gt;` `&quot;` `&apos;` `&#N;` `&#xH;`) are decoded. Unbalanced or malformed
 * markup throws SpeechError('invalid-ssml') naming the position.
 */
import { SpeechError } from './interface.ts';

export type Segment = { kind: 'text'; text: string; rate: number } | { kind: 'pause'; ms: number };

/** Break strengths in milliseconds (the values Azure and Polly document for the same names). */
export const BREAK_STRENGTH_MS: Record<string, number> = {
  none: 0,
  'x-weak': 250,
  weak: 500,
  medium: 750,
  strong: 1000,
  'x-strong': 1250,
};
/** The longest single pause; longer `time` values are cut to it (a typo must not make minutes of silence). */
export const MAX_BREAK_MS = 10_000;
/** Named prosody rates as multipliers of the voice's own rate. */
export const RATE_WORDS: Record<string, number> = { 'x-slow': 0.5, slow: 0.75, medium: 1, default: 1, fast: 1.5, 'x-fast': 2 };
/** Rates are kept within this range (slower or faster is not intelligible). */
export const MIN_RATE = 0.25;
export const MAX_RATE = 4;

export const clampRate = (rate: number): number => Math.min(MAX_RATE, Math.max(MIN_RATE, rate));

function invalid(message: string): never {
  throw new SpeechError('invalid-ssml', `invalid SSML: ${message}`);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(raw: string, at: number): string {
  if (!raw.includes('&')) return raw;
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const amp = raw.indexOf('&', i);
    if (amp < 0) {
      out += raw.slice(i);
      break;
    }
    out += raw.slice(i, amp);
    const semi = raw.indexOf(';', amp);
    if (semi < 0 || semi - amp > 12) invalid(`a bare '&' at character ${at + amp} (write &amp;)`);
    const name = raw.slice(amp + 1, semi);
    let char: string | undefined = ENTITIES[name];
    if (char === undefined && name.startsWith('#')) {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      if (Number.isInteger(code) && code > 0 && code <= 0x10ffff) char = String.fromCodePoint(code);
    }
    if (char === undefined) invalid(`unknown entity '&${name};' at character ${at + amp}`);
    out += char;
    i = semi + 1;
  }
  return out;
}

interface Tag {
  name: string;
  closing: boolean;
  selfClosing: boolean;
  attributes: Map<string, string>;
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const isNameChar = (c: string | undefined) => c !== undefined && !isSpace(c) && c !== '=' && c !== '>' && c !== '/' && c !== '<' && c !== '"' && c !== "'";

/** Reads the tag whose '<' is at `start`; returns it and the index after its '>'. */
function readTag(input: string, start: number): { tag: Tag; end: number } {
  let i = start + 1;
  const closing = input[i] === '/';
  if (closing) i++;
  const nameStart = i;
  while (isNameChar(input[i])) i++;
  const name = input.slice(nameStart, i).toLowerCase();
  if (!name) invalid(`a '<' without an element name at character ${start}`);
  const attributes = new Map<string, string>();
  for (;;) {
    while (isSpace(input[i])) i++;
    const c = input[i];
    if (c === undefined) invalid(`the element <${name}> at character ${start} is not closed with '>'`);
    if (c === '>') return { tag: { name, closing, selfClosing: false, attributes }, end: i + 1 };
    if (c === '/' && input[i + 1] === '>') {
      if (closing) invalid(`'</${name}/>' at character ${start}`);
      return { tag: { name, closing, selfClosing: true, attributes }, end: i + 2 };
    }
    if (closing) invalid(`the closing tag </${name}> at character ${start} has attributes`);
    const attrStart = i;
    while (isNameChar(input[i])) i++;
    const attr = input.slice(attrStart, i).toLowerCase();
    if (!attr) invalid(`unexpected '${c}' in <${name}> at character ${i}`);
    while (isSpace(input[i])) i++;
    if (input[i] !== '=') invalid(`the attribute '${attr}' of <${name}> at character ${attrStart} has no value`);
    i++;
    while (isSpace(input[i])) i++;
    const quote = input[i];
    if (quote !== '"' && quote !== "'") invalid(`the value of '${attr}' in <${name}> at character ${i} is not quoted`);
    const valueEnd = input.indexOf(quote, i + 1);
    if (valueEnd < 0) invalid(`the value of '${attr}' in <${name}> at character ${i} is not closed`);
    attributes.set(attr, decodeEntities(input.slice(i + 1, valueEnd), i + 1));
    i = valueEnd + 1;
  }
}

/** `500ms`, `1s`, `1.5s`, `250` (milliseconds); undefined when it is not a duration. */
export function parseDuration(value: string): number | undefined {
  const v = value.trim().toLowerCase();
  const [number, scale] = v.endsWith('ms') ? [v.slice(0, -2), 1] : v.endsWith('s') ? [v.slice(0, -1), 1000] : [v, 1];
  if (!/^\d+(\.\d+)?$/.test(number.trim())) return undefined; // the value is at most a short attribute: no backtracking risk
  return Number(number) * scale;
}

/** A prosody rate as a multiplier: words, `80%` (of normal), `+20%`/`-20%` (a change), `1.2`. */
export function parseRate(value: string): number | undefined {
  const v = value.trim().toLowerCase();
  if (v in RATE_WORDS) return RATE_WORDS[v];
  const percent = v.endsWith('%');
  const body = percent ? v.slice(0, -1) : v;
  if (!/^[+-]?\d+(\.\d+)?$/.test(body)) return undefined;
  const n = Number(body);
  const relative = body.startsWith('+') || body.startsWith('-');
  if (percent) return relative ? 1 + n / 100 : n / 100;
  return relative ? 1 + n : n;
}

const SENTENCE_ELEMENTS = new Set(['p', 's', 'paragraph', 'sentence']);

/**
 * Parses SSML into segments: consecutive text at one rate is one segment, pauses are merged,
 * segments of only whitespace are dropped. `baseRate` (the request's rate) multiplies every
 * prosody rate.
 */
export function parseSsml(input: string, baseRate = 1): Segment[] {
  const segments: Segment[] = [];
  const stack: { name: string; rate: number; alias?: string }[] = [];
  let sawSpeak = false;
  let suppress = 0; // inside <sub alias>: the content is replaced by the alias
  const rate = () => stack.at(-1)?.rate ?? baseRate;

  const pushText = (text: string) => {
    if (!text || suppress > 0) return;
    const last = segments.at(-1);
    const r = clampRate(rate());
    if (last?.kind === 'text' && last.rate === r) last.text += text;
    else segments.push({ kind: 'text', text, rate: r });
  };
  const pushPause = (ms: number) => {
    if (ms <= 0) return;
    const last = segments.at(-1);
    if (last?.kind === 'pause') last.ms = Math.min(MAX_BREAK_MS, last.ms + ms);
    else segments.push({ kind: 'pause', ms: Math.min(MAX_BREAK_MS, ms) });
  };

  let i = 0;
  while (i < input.length) {
    const lt = input.indexOf('<', i);
    const textEnd = lt < 0 ? input.length : lt;
    if (textEnd > i) {
      const raw = input.slice(i, textEnd);
      if (raw.includes('>')) invalid(`a bare '>' at character ${i + raw.indexOf('>')} (write &gt;)`);
      pushText(decodeEntities(raw, i));
    }
    if (lt < 0) break;
    if (input.startsWith('<!--', lt)) {
      const end = input.indexOf('-->', lt + 4);
      if (end < 0) invalid(`the comment at character ${lt} is not closed`);
      i = end + 3;
      continue;
    }
    if (input.startsWith('<?', lt) || input.startsWith('<!', lt)) {
      const end = input.indexOf('>', lt);
      if (end < 0) invalid(`the declaration at character ${lt} is not closed`);
      i = end + 1;
      continue;
    }
    const { tag, end } = readTag(input, lt);
    i = end;
    if (tag.closing) {
      const open = stack.pop();
      if (!open) invalid(`</${tag.name}> at character ${lt} closes nothing`);
      if (open.name !== tag.name) invalid(`</${tag.name}> at character ${lt} closes <${open.name}>`);
      if (open.alias !== undefined) {
        suppress--;
        pushText(` ${open.alias} `);
      }
      if (SENTENCE_ELEMENTS.has(tag.name)) pushText('. ');
      continue;
    }
    if (tag.name === 'speak') {
      if (stack.length > 0 || sawSpeak) invalid(`<speak> at character ${lt} must be the only root element`);
      sawSpeak = true;
    }
    if (tag.name === 'break') {
      const time = tag.attributes.get('time');
      const strength = tag.attributes.get('strength');
      let ms = BREAK_STRENGTH_MS.medium!;
      if (time !== undefined) {
        const parsed = parseDuration(time);
        if (parsed === undefined) invalid(`<break time="${time}"> at character ${lt}: write e.g. 500ms or 1.5s`);
        ms = parsed;
      } else if (strength !== undefined) {
        const named = BREAK_STRENGTH_MS[strength.trim().toLowerCase()];
        if (named === undefined) invalid(`<break strength="${strength}"> at character ${lt}: one of ${Object.keys(BREAK_STRENGTH_MS).join(', ')}`);
        ms = named;
      }
      pushPause(ms);
      if (!tag.selfClosing) stack.push({ name: tag.name, rate: rate() });
      continue;
    }
    if (tag.selfClosing) continue;
    let r = rate();
    if (tag.name === 'prosody' && tag.attributes.has('rate')) {
      const value = tag.attributes.get('rate')!;
      const parsed = parseRate(value);
      if (parsed === undefined || parsed <= 0) invalid(`<prosody rate="${value}"> at character ${lt}: write x-slow, slow, medium, fast, x-fast, 80%, +20% or 1.2`);
      r = r * parsed;
    }
    if (SENTENCE_ELEMENTS.has(tag.name)) pushText(' ');
    const alias = tag.name === 'sub' ? tag.attributes.get('alias') : undefined;
    if (alias !== undefined) suppress++;
    stack.push({ name: tag.name, rate: r, alias });
  }
  if (stack.length > 0) invalid(`<${stack.at(-1)!.name}> is never closed`);

  return segments.filter((s) => s.kind === 'pause' || s.text.trim() !== '').map((s) => (s.kind === 'text' ? { ...s, text: s.text.trim() } : s));
}

/** Plain text (no SSML) as segments: one text at the request's rate. */
export function plainSegments(text: string, baseRate = 1): Segment[] {
  return text.trim() ? [{ kind: 'text', text: text.trim(), rate: clampRate(baseRate) }] : [];
}
