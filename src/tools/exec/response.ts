/** What a tool call returns to its caller (and, through it, to the language model). */
export interface ToolOutput {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, UTF-8 text, or null for an empty body. */
  body: unknown;
}

export interface UpstreamResponse {
  status: number;
  headers: Readonly<Record<string, string>>;
  body: Buffer;
}

/**
 * Headers that describe one connection rather than the response (RFC 9110 §7.6.1), and
 * cookies: a session cookie is a credential of its own, and nobody downstream can use it.
 */
const DROPPED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'set-cookie', 'set-cookie2']);

/** Turns the raw upstream answer into a tool output: connection and cookie headers out, the body decoded. */
export function shapeUpstreamResponse(res: UpstreamResponse): ToolOutput {
  const lower = Object.entries(res.headers).map(([name, value]) => [name.toLowerCase(), value] as const);
  // Headers that `Connection` names are hop-by-hop for this response too.
  const named = new Set(
    lower
      .filter(([name]) => name === 'connection')
      .flatMap(([, value]) => value.split(','))
      .map((token) => token.trim().toLowerCase()),
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of lower) {
    if (DROPPED.has(name) || named.has(name) || name.startsWith('proxy-')) continue;
    // A header named "__proto__" must stay a header, not become the prototype.
    Object.defineProperty(headers, name, { value, enumerable: true, writable: true, configurable: true });
  }
  return { status: res.status, headers, body: decodeBody(res.body, headers['content-type']) };
}

function decodeBody(body: Buffer, contentType: string | undefined): unknown {
  if (body.length === 0) return null;
  // Charsets other than UTF-8 are rare in APIs; the decoder drops a BOM and replaces bad bytes.
  const text = new TextDecoder('utf-8').decode(body);
  const mediaType = contentType?.split(';')[0]!.trim().toLowerCase();
  if (mediaType === undefined || mediaType === '' || mediaType === 'application/json' || mediaType.endsWith('+json')) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
