// The JSON side of the tool editor: where a JSON text is broken (line and column), and a form
// built from a parameters schema for "Try it". No network here: what the service accepts is
// POST /tools/validate's to say.

/** `{ok: true, value}`, or `{ok: false, message, offset, line, column}` for a text that is not JSON. */
export function parseJson(text) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const message = String(err.message);
    const at = /at position (\d+)/.exec(message);
    const offset = at ? Math.min(Number(at[1]), text.length) : errorOffset(text);
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    // V8 says "... in JSON at position 42 (line 3 column 5)" or "..., "<the text>" is not valid JSON": the place is given apart.
    const reason = message.replace(/\s*(in JSON )?at position \d+.*$/s, '').replace(/, ".*" is not valid JSON$/s, '').replace(/^JSON\.parse: /, '');
    return { ok: false, message: reason || 'not valid JSON', offset, line, column };
  }
}

/** A prefix of the text is wrong in itself (not merely unfinished). */
function brokenPrefix(text, n) {
  try {
    JSON.parse(text.slice(0, n));
    return false;
  } catch (err) {
    const message = String(err.message);
    if (/end of JSON input|Unterminated string/.test(message)) return false;
    const at = /at position (\d+)/.exec(message);
    return !(at && Number(at[1]) >= n);
  }
}

/**
 * Where the text stops being JSON when the parser does not say (Node's and older V8's
 * "Unexpected token"): the shortest prefix that is wrong in itself, by bisection; its last
 * character is the culprit. The end of the text when only the end is missing.
 */
function errorOffset(text) {
  if (!brokenPrefix(text, text.length)) return text.length;
  let lo = 1;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (brokenPrefix(text, mid)) hi = mid;
    else lo = mid + 1;
  }
  return hi - 1;
}

/** The fields "Try it" shows for a parameters schema: one per top-level property, in order. */
export function fieldsOf(parameters) {
  const props = parameters && typeof parameters === 'object' && parameters.properties && typeof parameters.properties === 'object' ? parameters.properties : {};
  const required = new Set(Array.isArray(parameters?.required) ? parameters.required : []);
  return Object.entries(props).map(([name, schema]) => {
    const s = schema && typeof schema === 'object' ? schema : {};
    let kind = 'json';
    if (Array.isArray(s.enum) && s.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) kind = 'enum';
    else if (s.type === 'string') kind = 'string';
    else if (s.type === 'integer' || s.type === 'number') kind = s.type;
    else if (s.type === 'boolean') kind = 'boolean';
    return { name, kind, required: required.has(name), description: typeof s.description === 'string' ? s.description : '', schema: s };
  });
}

/**
 * Where the value at `path` (property names and array indexes) starts in a JSON text that
 * parses: `{offset, line, column}`; when the path is not all there (a missing property), where
 * its longest part that is. A small reader of its own, because JSON.parse keeps no positions.
 */
export function locate(text, path) {
  for (let n = path.length; n >= 0; n--) {
    const at = locateExactly(text, path.slice(0, n));
    if (at) return at;
  }
  return undefined;
}

function locateExactly(text, path) {
  let i = 0;
  const space = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const string = () => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i));
  };
  /** Reads one value; answers the offset of the one at path[depth..] inside it, if any. */
  const value = (depth) => {
    space();
    const start = i;
    if (depth === path.length) {
      skip();
      return start;
    }
    let found;
    if (text[i] === '{') {
      i++;
      space();
      while (text[i] !== '}') {
        space();
        const key = string();
        space();
        i++; // :
        const at = key === String(path[depth]) ? value(depth + 1) : (skip(), undefined);
        found ??= at;
        space();
        if (text[i] === ',') i++;
        space();
      }
      i++;
    } else if (text[i] === '[') {
      i++;
      space();
      for (let n = 0; text[i] !== ']'; n++) {
        const at = String(n) === String(path[depth]) ? value(depth + 1) : (skip(), undefined);
        found ??= at;
        space();
        if (text[i] === ',') i++;
        space();
      }
      i++;
    } else skip();
    return found;
  };
  /** Skips one value. */
  const skip = () => {
    space();
    if (text[i] === '"') return void string();
    if (text[i] === '{' || text[i] === '[') {
      const close = text[i] === '{' ? '}' : ']';
      i++;
      space();
      while (text[i] !== close) {
        if (close === '}') {
          string();
          space();
          i++;
        }
        skip();
        space();
        if (text[i] === ',') i++;
        space();
      }
      i++;
      return;
    }
    while (i < text.length && !',]} \t\n\r'.includes(text[i])) i++;
  };
  try {
    const offset = value(0);
    if (offset === undefined) return undefined;
    const before = text.slice(0, offset);
    return { offset, line: before.split('\n').length, column: offset - before.lastIndexOf('\n') };
  } catch {
    return undefined;
  }
}
