import { ApiError } from '../../errors.ts';
import type { FieldError } from '../../schemas/ajv.ts';
import { ToolInputError } from './errors.ts';

/**
 * A tool URL is a template such as `https://api.example.com/cities/{city}?units={units}`.
 * The user fixes the scheme, host and port; the model only fills path and query placeholders,
 * so it can never choose where a credential is sent. A literal brace is written `%7B`/`%7D`.
 */

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TOKEN = /\{([^{}]*)\}|[{}]/g;
/** The URL parser silently drops tabs and newlines and trims spaces: a template has none to hide. */
const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f]/;

type Piece = string | { name: string; inPath: boolean };

interface Template {
  /** The URL without its fragment (never sent), split into literal text and placeholders. */
  pieces: Piece[];
  names: string[];
  origin: string;
}

function parseTemplate(url: string): Template | { error: string } {
  if (CONTROL_OR_SPACE.test(url)) return { error: 'must not contain spaces or control characters' };
  const scheme = /^https?:\/\//i.exec(url);
  if (!scheme) return { error: 'must be an absolute http:// or https:// URL' };

  // The parser skips extra slashes and backslashes before the host (`https:///{x}` has host
  // `{x}`), so the host must follow `://` at once. It then ends at the first / \ ? or #; ending
  // the range at / ? or # only can make it longer than the parser's, never shorter.
  if (/^[/\\?#]/.test(url.slice(scheme[0].length))) return { error: 'must name a host right after "://"' };
  const afterScheme = url.slice(scheme[0].length).search(/[/?#]/);
  const authorityEnd = afterScheme < 0 ? url.length : scheme[0].length + afterScheme;
  const fragmentStart = url.includes('#') ? url.indexOf('#') : url.length;
  const question = url.indexOf('?');
  const queryStart = question >= 0 && question < fragmentStart ? question : fragmentStart;

  const pieces: Piece[] = [];
  const names: string[] = [];
  let last = 0;
  for (const m of url.matchAll(TOKEN)) {
    const at = m.index;
    if (m[1] === undefined) return { error: `has an unmatched "${m[0]}" (write a literal brace as %7B or %7D)` };
    if (!NAME.test(m[1])) return { error: `has an invalid placeholder {${m[1]}} (a name is letters, digits and _, not starting with a digit)` };
    if (at < authorityEnd) return { error: 'must not have placeholders in the scheme, host or port (only in the path or query)' };
    if (at > fragmentStart) return { error: 'must not have placeholders in the fragment (only in the path or query)' };
    pieces.push(url.slice(last, at), { name: m[1], inPath: at < queryStart });
    if (!names.includes(m[1])) names.push(m[1]);
    last = at + m[0].length;
  }
  pieces.push(url.slice(last, fragmentStart));

  let parsed: URL;
  let other: URL;
  try {
    parsed = new URL(url.replace(TOKEN, 'x'));
    other = new URL(url.replace(TOKEN, 'y0'));
  } catch {
    return { error: 'must be an absolute http:// or https:// URL' };
  }
  // Belt and braces for the scan above: whatever the input, the origin must stay the same.
  if (parsed.origin !== other.origin) return { error: 'must not have placeholders in the scheme, host or port (only in the path or query)' };
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return { error: 'must be an absolute http:// or https:// URL' };
  if (parsed.username !== '' || parsed.password !== '') return { error: 'must not contain user info (user:password@)' };
  if (parsed.hostname === '') return { error: 'must name a host' };
  return { pieces: pieces.filter((p) => p !== ''), names, origin: parsed.origin };
}

/** Parsed templates of stored tool URLs (a tool call fills the same few URLs again and again); never mutated. */
const parsed = new Map<string, Template | { error: string }>();
const PARSED_TEMPLATES = 1000;

function parsedTemplate(url: string): Template | { error: string } {
  let template = parsed.get(url);
  if (!template) {
    template = parseTemplate(url);
    if (parsed.size >= PARSED_TEMPLATES) parsed.delete(parsed.keys().next().value!);
    parsed.set(url, template);
  }
  return template;
}

/** The placeholder names of a tool URL, or why the URL cannot be a tool URL (a phrase after "config.url"). */
export function placeholdersOf(url: string): { names: string[] } | { error: string } {
  const template = parseTemplate(url);
  return 'error' in template ? template : { names: template.names };
}

/**
 * Fills the placeholders of a stored tool URL from the model's input. Values are scalars,
 * percent-encoded whole (`/ ? # %` cannot change the path's shape), and a path value may not be
 * empty or a dot segment (`..` would be resolved away and climb out of the path).
 * Returns the URL without its fragment and the input keys it consumed.
 */
export function fillUrl(url: string, input: Readonly<Record<string, unknown>>): { url: string; consumed: string[] } {
  const template = parsedTemplate(url);
  if ('error' in template) throw new ApiError('ConfigError', `The tool URL ${template.error}`);

  const problems: FieldError[] = [];
  const pathValues: { name: string; start: number; end: number }[] = [];
  let out = '';
  for (const piece of template.pieces) {
    if (typeof piece === 'string') {
      out += piece;
      continue;
    }
    const field = `input.${piece.name}`;
    const value = Object.hasOwn(input, piece.name) ? input[piece.name] : undefined;
    const text = scalarText(value);
    if (text === undefined) {
      problems.push({ field, message: value === undefined ? 'is required (it fills a URL placeholder)' : 'must be a string, number or boolean (it fills a URL placeholder)' });
      continue;
    }
    let encoded: string;
    try {
      encoded = encodeURIComponent(text);
    } catch {
      problems.push({ field, message: 'must be valid Unicode text' });
      continue;
    }
    if (piece.inPath && encoded === '') problems.push({ field, message: 'must not be empty (it fills a URL path segment)' });
    if (piece.inPath) pathValues.push({ name: piece.name, start: out.length, end: out.length + encoded.length });
    out += encoded;
  }

  for (const { name, start, end } of pathValues) {
    const segmentStart = out.lastIndexOf('/', start - 1) + 1;
    const slash = out.indexOf('/', end);
    const query = out.indexOf('?', end);
    const segmentEnd = Math.min(...[slash, query, out.length].filter((i) => i >= 0));
    if (isDotSegment(out.slice(segmentStart, segmentEnd))) problems.push({ field: `input.${name}`, message: 'must not make a URL path segment "." or ".."' });
  }
  if (problems.length > 0) throw new ToolInputError(problems);

  // Cannot happen with the checks above; kept so a future change cannot quietly move the host.
  if (new URL(out).origin !== template.origin) throw new Error('filled tool URL changed origin');
  return { url: out, consumed: template.names };
}

function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

/** The URL parser treats `%2e` as a dot, so `%2e%2e` climbs just like `..`. */
function isDotSegment(segment: string): boolean {
  const dots = segment.replace(/%2e/gi, '.');
  return dots === '.' || dots === '..';
}
