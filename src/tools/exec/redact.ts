import { SECRET_MASK, type Credential } from '../../secrets/credential.ts';
import type { ToolOutput } from './response.ts';

/**
 * Every spelling in which a credential could come back from an upstream that echoes its
 * request (headers, URL, body): raw, as sent in the auth header, base64 (basic), percent- and
 * JSON-escaped. Not the username alone: it is not a secret, and masking it would hide too much.
 * Longest first, so `Bearer x` is masked whole before `x` is.
 */
export function credentialForms(credential: Credential): string[] {
  const cores: string[] = [];
  const wrapped: string[] = [];
  switch (credential.type) {
    case 'bearer':
    case 'oauth2': {
      const token = credential.type === 'bearer' ? credential.token : credential.accessToken;
      cores.push(token);
      wrapped.push(`Bearer ${token}`);
      break;
    }
    case 'api_key':
      cores.push(credential.apiKey);
      break;
    case 'basic': {
      const pair = `${credential.username}:${credential.password}`;
      const base64 = Buffer.from(pair, 'utf8').toString('base64');
      cores.push(credential.password, pair, base64, base64.replace(/=+$/, ''), Buffer.from(pair, 'utf8').toString('base64url'));
      wrapped.push(`Basic ${base64}`);
      break;
    }
  }
  const forms = new Set(wrapped);
  for (const core of cores) for (const form of escapedForms(core)) forms.add(form);
  return [...forms].filter((f) => f !== '').sort((a, b) => b.length - a.length);
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
  // Python's json.dumps (ensure_ascii) and others write non-ASCII as \uXXXX.
  forms.push(json, json.replace(/[^\x00-\x7f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`));
  return forms;
}

/** Replaces every occurrence of every form; one split/join per form that occurs, so linear per form. */
export function redactText(text: string, forms: readonly string[]): string {
  let out = text;
  for (const form of forms) if (out.includes(form)) out = out.split(form).join(SECRET_MASK);
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
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A redacted copy of parsed JSON: keys and strings, at any depth, without recursion. */
function redactJson(root: unknown, forms: readonly string[]): unknown {
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

/**
 * The tool output with every credential form masked in header names and values and in the
 * body (text, or every key and string of parsed JSON). Runs on every tool result before it
 * reaches the caller or the model; with no forms it returns the output unchanged.
 */
export function redactToolOutput(output: ToolOutput, forms: readonly string[]): ToolOutput {
  if (forms.length === 0) return output;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(output.headers)) put(headers, redactText(name, forms), redactText(value, forms));
  return { status: output.status, headers, body: redactJson(output.body, forms) };
}
