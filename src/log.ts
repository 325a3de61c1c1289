/**
 * Structured logs: one JSON line per event on stdout. Values pass through `redact` first,
 * so an API key, a bearer token or a signed URL's signature never reaches a log line even
 * when a caller slips one into a field.
 */
export interface Logger {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const SECRET_PATTERNS: [RegExp, string][] = [
  [/mimic_[A-Za-z0-9_-]{20,}/g, 'mimic_[redacted]'],
  [/whsec_[A-Za-z0-9+/=_-]{8,}/g, 'whsec_[redacted]'],
  [/mwk_[A-Za-z0-9_-]{20,}/g, 'mwk_[redacted]'],
  [/\b(Basic|Bearer)\s+[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'],
  [/([?&](?:signature|sig|token|X-Amz-Signature|X-Amz-Credential|X-Goog-Signature|access_token|api_key|key)=)[^&\s"]*/gi, '$1[redacted]'],
];

export function redact(text: string): string {
  let out = text;
  for (const [re, repl] of SECRET_PATTERNS) out = out.replace(re, repl);
  return out;
}

export type LogSink = (line: string) => void;

export function createLogger(sink: LogSink = (line) => process.stdout.write(line + '\n'), base: Record<string, unknown> = {}): Logger {
  const write = (level: string, msg: string, fields?: Record<string, unknown>) => {
    sink(redact(JSON.stringify({ time: new Date().toISOString(), level, msg, ...base, ...fields })));
  };
  return {
    info: (msg, fields) => write('info', msg, fields),
    warn: (msg, fields) => write('warn', msg, fields),
    error: (msg, fields) => write('error', msg, fields),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
