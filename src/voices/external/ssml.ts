import { SpeechError } from '../interface.ts';

/**
 * The little SSML handling the external voices need: a script's SSML checked for balance and
 * unwrapped from its `<speak>` (Azure gets it inside its own `<speak><voice>`), or reduced to
 * plain text (vendors that take no SSML). Not a full XML parser: it refuses what it cannot
 * vouch for (DOCTYPE, processing instructions, CDATA, unbalanced tags, bare ampersands).
 */

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const TOKEN = /<!--[\s\S]*?-->|<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>|<|&(?:[a-z]+|#\d+|#x[0-9a-fA-F]+);|&/g;

const invalid = (why: string) => new SpeechError('invalid-ssml', `invalid SSML: ${why}`);

interface Parsed {
  /** The content inside the outer <speak>, as written. */
  inner: string;
  /** The text alone: tags dropped, entities decoded. */
  text: string;
}

function decodeEntity(entity: string): string {
  const name = entity.slice(1, -1);
  if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
  if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)));
  const known = ENTITIES[name];
  if (known === undefined) throw invalid(`unknown entity ${entity.slice(0, 20)}`);
  return known;
}

/** Checks balance and entities; elements named in `forbidden` may not appear inside. */
export function parseSsml(source: string, forbidden: readonly string[] = ['speak', 'voice']): Parsed {
  let body = source.trim();
  const open = /^<speak(?:\s[^>]*)?>/.exec(body);
  if (open) {
    if (!body.endsWith('</speak>')) throw invalid('<speak> is not closed at the end');
    body = body.slice(open[0].length, -'</speak>'.length);
  }
  const stack: string[] = [];
  let text = '';
  let last = 0;
  for (const m of body.matchAll(TOKEN)) {
    text += body.slice(last, m.index);
    last = m.index + m[0].length;
    const token = m[0];
    if (token.startsWith('<!--')) continue;
    if (token === '<') throw invalid('a "<" that does not start a tag (write &lt;)');
    if (token === '&') throw invalid('a bare "&" (write &amp;)');
    if (token.startsWith('&')) {
      text += decodeEntity(token);
      continue;
    }
    const [, closing, name, , selfClosing] = m;
    if (forbidden.includes(name!)) throw invalid(`<${name}> may not appear inside the script (the voice comes from provider.voice_id)`);
    if (closing) {
      if (stack.pop() !== name) throw invalid(`</${name}> does not close the open element`);
    } else if (!selfClosing) {
      stack.push(name!);
    }
    // A break between words must still separate them in plain text.
    text += ' ';
  }
  text += body.slice(last);
  if (stack.length) throw invalid(`<${stack.at(-1)}> is not closed`);
  const plain = text.replace(/\s+/g, ' ').trim();
  if (!plain) throw invalid('there is no text to speak');
  return { inner: body, text: plain };
}

/** Text made safe inside an XML element. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[ch]};`);
}

/** The words of a request: SSML reduced to its text, or the text as given. */
export function plainText(text: string, ssml: boolean | undefined): string {
  return ssml ? parseSsml(text).text : text;
}
