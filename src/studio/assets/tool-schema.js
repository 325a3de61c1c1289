// The JSON side of the tool editor: where a JSON text is broken (line and column), and a form
// built from a parameters schema for "Try it". No network here: what the service accepts is
// POST /tools/validate's to say.

/** `{ok: true, value}`, or `{ok: false, message, offset, line, column}` for a text that is not JSON. */
export function parseJson(text) {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    const message = String(err.message);
    const offset = jsonErrorOffset(message, text);
    const before = text.slice(0, offset);
    const line = before.split('\n').length;
    const column = offset - before.lastIndexOf('\n');
    // V8 says "... in JSON at position 42 (line 3 column 5)": the place is given apart.
    const reason = message.replace(/\s*(in JSON )?at position \d+.*$/s, '').replace(/^JSON\.parse: /, '');
    return { ok: false, message: reason || 'not valid JSON', offset, line, column };
  }
}

function jsonErrorOffset(message, text) {
  const at = /at position (\d+)/.exec(message);
  if (at) return Math.min(Number(at[1]), text.length);
  // "Unexpected end of JSON input": the end.
  return text.length;
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
