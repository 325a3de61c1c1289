// What the tools pages say about a tool and a secret, shared by tools.js and tool.js.

/** The host of a tool's URL (a template with {placeholders} is still a URL up to its path). */
export function hostOf(url) {
  try {
    return new URL(url.replace(/\{[^}]*\}/g, 'x')).host;
  } catch {
    return url;
  }
}

/** A secret as a person recognises it: provider and type, and whether it needs reconnecting; never its value. */
export function secretLabel(s) {
  const state = s.status === 'needs_reauthorization' ? ', needs reconnecting' : '';
  return `${s.provider} (${s.type}${state})`;
}
