/** The driver bank of the interface: categories, their drivers, and how `bank://` URLs resolve. */

import { DRIVER_BANK, type DriverCategory } from '../compute/driver-bank.ts';

export { DRIVER_BANK, DRIVER_CATEGORIES, type DriverCategory } from '../compute/driver-bank.ts';

export interface BankDriver {
  category: DriverCategory;
  name: string;
}

export const bankUrl = (d: BankDriver): string => `bank://${d.category}/${d.name}`;

const isCategory = (s: string): s is DriverCategory => Object.hasOwn(DRIVER_BANK, s);

/**
 * Parses `bank://<category>[/][<driver>]`. Returns the category and, when named, the
 * driver; null when the category or the driver does not exist.
 */
export function parseBankUrl(url: string): { category: DriverCategory; name?: string } | null {
  const m = /^bank:\/\/([^/]+)(?:\/([^/]*))?\/?$/.exec(url);
  if (!m || !isCategory(m[1]!)) return null;
  const category = m[1];
  const name = m[2] || undefined;
  if (name !== undefined && !(DRIVER_BANK[category].drivers as readonly string[]).includes(name)) return null;
  return { category, name };
}

/**
 * The best-matched driver of a category. Without an image analysis to go on, the pick is
 * stable per request seed (so a retry renders the same driver) and spread over the category.
 */
export function pickDriver(category: DriverCategory, seed: string): BankDriver {
  const drivers = DRIVER_BANK[category].drivers;
  let h = 2166136261;
  for (const ch of seed) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return { category, name: drivers[(h >>> 0) % drivers.length]! };
}

/** With no driver_url at all, the service uses the gentle nostalgia category. */
export const DEFAULT_CATEGORY: DriverCategory = 'nostalgia';
