import { SECRET_MASK, type Credential } from './credential.ts';

/**
 * The shortest base64 core masked inside a larger text: 8 characters carry 48 bits of the
 * secret, so unrelated base64 holds one by chance about once in 2.8e14 positions. A secret of
 * 7 bytes or more has a core this long at every alignment; a shorter one is masked in base64
 * only as a whole value (its own base64, `Bearer x`, `user:pass`), not inside a larger blob.
 */
export const MIN_CORE_CHARS = 8;

const urlSafe = (base64: string) => base64.replaceAll('+', '-').replaceAll('/', '_');

/**
 * The base64 characters that depend on `bytes` alone when they start `k` bytes past a 3-byte
 * boundary of a larger encoded text (`Bearer x` puts x at k = 1, a whole echoed header block
 * anywhere): whatever comes before and after, any base64 of such a text contains them. Only
 * the partial characters at each end (a few bits of the first and last byte) stay unmasked.
 */
function base64Core(bytes: Buffer, k: 0 | 1 | 2): string {
  const encoded = Buffer.concat([Buffer.alloc(k), bytes]).toString('base64');
  return encoded.slice(Math.ceil((4 * k) / 3), Math.floor((4 * (k + bytes.length)) / 3));
}

/** A value encoded whole: base64 and base64url, padded or not, and hex in both cases. */
function wholeEncodings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const base64 = bytes.toString('base64');
  const unpadded = base64.replace(/=+$/, '');
  const hex = bytes.toString('hex');
  return [base64, unpadded, urlSafe(base64), urlSafe(unpadded), hex, hex.toUpperCase()];
}

/** A value inside any larger base64 or base64url text: its core at each of the three alignments. */
function embeddedEncodings(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const cores = ([0, 1, 2] as const).map((k) => base64Core(bytes, k)).filter((core) => core.length >= MIN_CORE_CHARS);
  return cores.flatMap((core) => [core, urlSafe(core)]);
}

/**
 * Every spelling in which secret values could come back from an upstream that echoes its
 * request (headers, URL, body): raw; whole in base64, base64url (padded or not) and hex (lower
 * and upper case); inside any larger base64 or base64url text (`embeddedEncodings`); and each
 * of those percent- and JSON-escaped. `wrapped` are the values as sent around a secret
 * (`Bearer x`, `Basic b64`): masked whole, in every form but the embedded one (the cores of
 * the secret inside them cover it: `x`, and for basic the `b64` that `credentialForms` passes
 * as a secret). Longest first, so `Bearer x` is masked whole before `x` is.
 * SECURITY.md ("Masked encodings") lists what is not covered.
 */
export function secretForms(secrets: readonly string[], wrapped: readonly string[] = []): string[] {
  const spellings = new Set<string>();
  for (const value of [...secrets, ...wrapped]) for (const form of [value, ...wholeEncodings(value)]) spellings.add(form);
  for (const value of secrets) for (const form of embeddedEncodings(value)) spellings.add(form);
  const forms = new Set<string>();
  for (const spelling of spellings) for (const form of escapedForms(spelling)) forms.add(form);
  return [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
}

/**
 * The forms of one credential as the executor sends it (`secretForms`): the token, the key,
 * the password and `user:pass`, and the auth header's value. Not the username alone: it is
 * not a secret, and masking it would hide too much.
 */
export function credentialForms(credential: Credential): string[] {
  switch (credential.type) {
    case 'bearer':
    case 'oauth2': {
      const token = credential.type === 'bearer' ? credential.token : credential.accessToken;
      return secretForms([token], [`Bearer ${token}`]);
    }
    case 'api_key':
      return secretForms([credential.apiKey]);
    case 'basic': {
      const pair = `${credential.username}:${credential.password}`;
      // The header carries base64 of the pair: a secret value too, so its cores mask a header block encoded whole.
      const encoded = Buffer.from(pair, 'utf8').toString('base64');
      return secretForms([credential.password, pair, encoded], [`Basic ${encoded}`]);
    }
  }
}

function escapedForms(value: string): string[] {
  const forms = [value];
  try {
    const percent = encodeURIComponent(value);
    forms.push(percent, percent.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()), percent.replaceAll('%20', '+'));
  } catch {
    // A lone surrogate has no percent-encoded form; nothing upstream could produce one either.
  }
  const json = JSON.stringify(value).slice(1, -1);
  // Python's json.dumps (ensure_ascii) and others write non-ASCII as \uXXXX; PHP's json_encode writes / as \/.
  forms.push(json, json.replace(/[^\x00-\x7f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`), json.replaceAll('/', '\\/'));
  return forms;
}

/**
 * Replaces every occurrence of every form; one split/join per form that occurs, so linear per
 * form. Forms longer than the text are skipped without a search (a JSON body is mostly short
 * strings, and the forms come longest first).
 */
export function redactText(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (form.length <= out.length && out.includes(form)) out = out.split(form).join(SECRET_MASK);
  return out;
}

/** A numeric api key may come back as a JSON number: it becomes the mask, as a string. */
function redactScalar(value: unknown, forms: readonly string[]): unknown {
  if (typeof value === 'string') return redactText(value, forms);
  if (typeof value === 'number') {
    const text = String(value);
    return forms.some((f) => text.includes(f)) ? redactText(text, forms) : value;
  }
  return value;
}

/** Sets a key as an own property, so a JSON key "__proto__" is copied and not made the prototype. */
export function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A redacted copy of parsed JSON: keys and strings, at any depth, without recursion. */
export function redactJson(root: unknown, forms: readonly string[]): unknown {
  const pending: { from: unknown; to: unknown[] | Record<string, unknown> }[] = [];
  const visit = (value: unknown): unknown => {
    if (typeof value !== 'object' || value === null) return redactScalar(value, forms);
    const to = Array.isArray(value) ? [] : {};
    pending.push({ from: value, to });
    return to;
  };
  const result = visit(root);
  while (pending.length > 0) {
    const { from, to } = pending.pop()!;
    if (Array.isArray(from)) {
      const list = to as unknown[];
      for (const item of from) list.push(visit(item));
    } else {
      const object = to as Record<string, unknown>;
      for (const [key, value] of Object.entries(from as object)) put(object, redactText(key, forms), visit(value));
    }
  }
  return result;
}
