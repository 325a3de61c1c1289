import { ConfigurationError } from '../config.ts';
import type { ConfigSection } from '../platform/module.ts';
import { BUILT_IN_PRESENTERS } from './built-in.ts';

/**
 * Presenter aliases (docs/presenters.md, "Aliases"): foreign presenter ids that clients of the
 * hosted service hard-code (its public demo streams `v2_public_alex@qcvo4gupoy`) mapped to
 * built-in presenters, so such a client works with only its base URL and key changed. An
 * alias resolves wherever a presenter id is looked up and is never listed.
 */

/** One alias: an exact foreign id, or a prefix when it ends in `*`, to a built-in presenter id. */
export interface PresenterAlias {
  from: string;
  to: string;
}

/**
 * Public presenter ids of the hosted service's demos and documentation, each to a built-in of
 * the same gender. Its public ids are `v2_public_<Name>[_<outfit>_<place>]@<id>`, the name in
 * either case (`v2_public_Amber@0zSz8kflCN` in its clips overview, `v2_public_amber@Y5K02DLS4m`
 * and `v2_public_Amber_RedSweater_HomeOffice@atjDiWT4JK` in its presenters list), so each name
 * is a prefix: alex (its live-streaming demo), amber, adam, alyssa, anita, arran and benjamin
 * (its presenters list), rian and jack (its OpenAPI examples), amy (its clips guide).
 */
export const DEFAULT_PRESENTER_ALIASES = [
  'v2_public_alex*=ernst-Bv6tR3nK9p',
  'v2_public_adam*=mehmet-Wk9cP5hT1e',
  'v2_public_arran*=aksel-Jd2xF7sY4g',
  'v2_public_benjamin*=ernst-Bv6tR3nK9p',
  'v2_public_rian*=aksel-Jd2xF7sY4g',
  'rian-lZC6MmWfC1=aksel-Jd2xF7sY4g',
  'jack-Pt27VkP3hW=mehmet-Wk9cP5hT1e',
  'v2_public_amber*=eileen-Nc7kQ2rT5x',
  'v2_public_alyssa*=charlotte-Ys3gM6vQ8r',
  'v2_public_anita*=grace-Hq4mW8zL2c',
  'amy-*=charlotte-Ys3gM6vQ8r',
].join(',');

const FROM = /^[A-Za-z0-9_.@-]+\*?$/;

/**
 * `MIMIC_PRESENTER_ALIASES`: a comma list of `foreign-id=presenter-id` (a foreign id ending in
 * `*` matches every id it begins); the word `default` stands for the default list. The target
 * must be a built-in presenter; a built-in id cannot be an alias.
 */
export function parsePresenterAliases(raw: string | undefined): PresenterAlias[] {
  const builtIn = new Set(BUILT_IN_PRESENTERS.map((p) => p.id));
  const text = raw === undefined ? 'default' : raw;
  const entries = text.split(',').map((e) => e.trim()).filter((e) => e !== '').flatMap((e) => (e === 'default' ? DEFAULT_PRESENTER_ALIASES.split(',') : [e]));
  const seen = new Set<string>();
  return entries.map((entry) => {
    const eq = entry.indexOf('=');
    const from = eq < 0 ? '' : entry.slice(0, eq).trim();
    const to = eq < 0 ? '' : entry.slice(eq + 1).trim();
    if (!FROM.test(from) || from === '*') throw new ConfigurationError(`MIMIC_PRESENTER_ALIASES: "${entry}" is not foreign-id=presenter-id (letters, digits, _ . @ -, and * only at the end)`);
    if (!builtIn.has(to)) throw new ConfigurationError(`MIMIC_PRESENTER_ALIASES: "${to}" in "${entry}" is not a built-in presenter (${[...builtIn].join(', ')})`);
    if (builtIn.has(from)) throw new ConfigurationError(`MIMIC_PRESENTER_ALIASES: "${from}" is a built-in presenter and cannot be an alias`);
    if (seen.has(from)) throw new ConfigurationError(`MIMIC_PRESENTER_ALIASES: "${from}" is given twice`);
    seen.add(from);
    return { from, to };
  });
}

/**
 * The built-in presenter id an alias gives `id`, or undefined: an exact alias before any
 * prefix, the longest prefix first. A prefix matches in any case (the hosted service writes
 * `v2_public_Amber@…` and `v2_public_amber@…`); an exact id only as written.
 */
export function resolveAlias(aliases: readonly PresenterAlias[], id: string): string | undefined {
  const exact = aliases.find((a) => !a.from.endsWith('*') && a.from === id);
  if (exact) return exact.to;
  const lower = id.toLowerCase();
  let best: PresenterAlias | undefined;
  for (const a of aliases) {
    if (!a.from.endsWith('*')) continue;
    const prefix = a.from.slice(0, -1).toLowerCase();
    if (lower.startsWith(prefix) && (!best || prefix.length > best.from.length - 1)) best = a;
  }
  return best?.to;
}

export interface PresenterSettings {
  aliases: PresenterAlias[];
}

export const presenterSettings: ConfigSection<PresenterSettings> = {
  variables: [
    { name: 'MIMIC_PRESENTER_ALIASES', default: 'default', description: 'comma list of foreign-id=presenter-id (a foreign id ending in * is a prefix; "default" is the public presenter ids of the hosted service\'s demos and docs, each to a built-in of the same gender; empty: none): clients that hard-code such an id use the built-in presenter' },
  ],
  load: (env) => ({ aliases: parsePresenterAliases(env.MIMIC_PRESENTER_ALIASES) }),
};
