import { ApiError } from '../../errors.ts';
import { authHeader, type Credential } from '../../egress/credential.ts';
import { ToolInputError } from './errors.ts';
import { fillUrl } from './url-template.ts';

/** Methods a server tool may use; the ones without a body carry the input in the query. */
export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type ToolMethod = (typeof TOOL_METHODS)[number];
const QUERY_METHODS: readonly string[] = ['GET', 'DELETE'];

export interface ToolRequestSpec {
  url: string;
  method: string;
  /** The model's arguments, already checked against the tool's parameters schema. */
  input: Readonly<Record<string, unknown>>;
  credential?: Credential | undefined;
}

export interface ToolRequest {
  url: string;
  method: ToolMethod;
  headers: Record<string, string>;
  body?: string;
}

const ACCEPT = 'application/json, text/plain;q=0.9, */*;q=0.8';
/**
 * The outbound request of one tool call. URL placeholders take their input keys; the rest go
 * to the query (GET, DELETE) or to a JSON object body. The auth header follows the secret
 * type exactly as the interface's table says, and is absent when the tool has no secret.
 */
export function buildToolRequest(spec: ToolRequestSpec): ToolRequest {
  const method = spec.method.toUpperCase();
  if (!isToolMethod(method)) throw new ApiError('ConfigError', `The tool method ${JSON.stringify(spec.method)} is not one of ${TOOL_METHODS.join(', ')}`);

  const filled = fillUrl(spec.url, spec.input);
  const rest = Object.entries(spec.input).filter(([key]) => !filled.consumed.includes(key));
  // We never decompress: ask for the body as is, so redaction sees the bytes the API wrote.
  const headers: Record<string, string> = { accept: ACCEPT, 'accept-encoding': 'identity' };
  if (spec.credential) Object.assign(headers, authHeader(spec.credential));

  if (QUERY_METHODS.includes(method)) {
    return { url: withQuery(filled.url, rest), method, headers };
  }
  headers['content-type'] = 'application/json';
  // fromEntries defines own properties, so an input key "__proto__" stays an ordinary key.
  return { url: filled.url, method, headers, body: JSON.stringify(Object.fromEntries(rest)) };
}

function isToolMethod(method: string): method is ToolMethod {
  return (TOOL_METHODS as readonly string[]).includes(method);
}

/** Appends input to the query: scalars as text, arrays as repeated keys, objects and null as JSON. */
function withQuery(url: string, entries: [string, unknown][]): string {
  const pairs: string[] = [];
  for (const [key, value] of entries) {
    for (const item of Array.isArray(value) ? value : [value]) {
      try {
        pairs.push(`${encodeURIComponent(key)}=${encodeURIComponent(queryText(item))}`);
      } catch {
        // encodeURIComponent throws on a lone surrogate: the model's text, not our fault.
        throw new ToolInputError([{ field: `input.${key}`, message: 'must be valid Unicode text' }]);
      }
    }
  }
  if (pairs.length === 0) return url;
  const separator = !url.includes('?') ? '?' : url.endsWith('?') || url.endsWith('&') ? '' : '&';
  return url + separator + pairs.join('&');
}

function queryText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? 'null';
}
