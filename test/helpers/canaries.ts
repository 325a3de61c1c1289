/**
 * Known credentials planted by the secret and tool tests. The harness checks, when it closes,
 * that none of them appears in any response, log line, audit row or database file of that
 * run: raw, percent- or JSON-escaped, or inside any run of base64, base64url or hex text
 * (decoded at every offset, so "Bearer x", "user:pass" and whole echoed header blocks count).
 * Every value is unique enough that a match cannot be a coincidence.
 */
export const CANARY = {
  bearer: 'cnry-bearer-Q7x9Lm2Pz4Kd8Vw1',
  apiKey: 'cnry-apikey-Hs5Tj3Rn6Yb0Gc2',
  basicUser: 'cnry-user-Wq4Zx',
  basicPassword: 'cnry-pass-Nf8Ue1Mo3Ia7',
  accessToken: 'cnry-access-Lp0Kr9Ej5Vt2',
  refreshToken: 'cnry-refresh-Dy6Sg4Ob8Xh1',
  clientSecret: 'cnry-client-Cv3Bn7Am2Qs9',
  rotatedBearer: 'cnry-bearer2-Ui4Op8Lk1Jh6',
  refreshedAccess: 'cnry-access2-Zm5Xn3Cb7Vq0',
  refreshedRefresh: 'cnry-refresh2-Rt6Yu2Io9Pa4',
} as const;

/**
 * Canaries with `+`, `/`, `=` and `?` in them, chosen so that their base64 (alone, after
 * "Bearer ", and after "cnry-user:") holds `+`, `/` and padding too: every escape and both
 * base64 alphabets differ from the raw value.
 */
export const ENCODED_CANARY = {
  bearer: 'cnry=/+??~~~Bearer-Q7x9Lm2Pz4Kd8Vw1xy',
  accessToken: 'cnry=/+??~~~Access-Lp0Kr9Ej5Vt2',
  apiKey: 'cnry=/+??~~~ApiKey-Hs5Tj3Rn6Yb0Gc2',
  basicUser: 'cnry-user',
  basicPassword: 'cnry=/+??~~~Pass-Nf8Ue1Mo3Ia7xy',
  refreshToken: 'cnry=/+??~~~Refresh-Dy6Sg4Ob8Xh1xy',
  clientSecret: 'cnry=/+??~~~Client-Cv3Bn7Am2Qs9',
} as const;

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The planted secret values; a basic username alone is not a secret. */
function secretValues(): string[] {
  return [CANARY, ENCODED_CANARY].flatMap((set) => Object.entries(set).filter(([k]) => k !== 'basicUser').map(([, v]) => v));
}

/** Literal forms of every canary that must never be seen (the decoding check in leakedIn finds the rest). */
export function canaryForms(): string[] {
  const raw = secretValues();
  return [...raw, b64(`${CANARY.basicUser}:${CANARY.basicPassword}`), ...raw.map(b64)];
}

/** The text with percent-escapes and JSON's `\/` undone, byte for byte (the canaries are ASCII). */
function unescaped(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).replaceAll('\\/', '/');
}

/**
 * The values (UTF-8) found in a run of base64 (either alphabet) or hex in the text, decoded
 * from every start: an encoding oracle that knows nothing of how the masking works.
 */
export function inDecodedRuns(text: string, values: readonly string[]): string[] {
  const found = new Set<string>();
  const bytesOf = values.map((v) => [v, Buffer.from(v, 'utf8').toString('latin1')] as const);
  const check = (bytes: Buffer) => {
    const decoded = bytes.toString('latin1');
    for (const [v, latin1] of bytesOf) if (decoded.includes(latin1)) found.add(v);
  };
  for (const [run] of text.matchAll(/[A-Za-z0-9+/_-]{12,}/g)) for (let at = 0; at < 4; at++) check(Buffer.from(run.slice(at), 'base64'));
  for (const [run] of text.matchAll(/[0-9A-Fa-f]{16,}/g)) for (let at = 0; at < 2; at++) check(Buffer.from(run.slice(at), 'hex'));
  return [...found];
}

/** The canaries found in `text` (empty when clean): literally, escaped, or inside base64, base64url or hex. */
export function leakedIn(text: string): string[] {
  const views = [text, unescaped(text)];
  const found = canaryForms().filter((f) => views.some((v) => v.includes(f)));
  for (const v of views) for (const value of inDecodedRuns(v, secretValues())) found.push(`${value.slice(0, 20)}… (encoded)`);
  return [...new Set(found)];
}
