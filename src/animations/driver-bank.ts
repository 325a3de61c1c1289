/** The driver bank of the interface: categories, their drivers, and how `bank://` URLs resolve. */

const range = (from: number, to: number, skip: number[] = []): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i)
    .filter((n) => !skip.includes(n))
    .map((n) => `driver-${String(n).padStart(2, '0')}`);

export const DRIVER_BANK = {
  nostalgia: { description: 'Gentle and slow movements', drivers: range(1, 17, [13]) },
  fun: { description: 'Funky movements with funny facial expressions', drivers: range(1, 10) },
  dance: { description: 'Dancing head movements', drivers: range(1, 11) },
  classics: {
    description: 'Singing movements; set mute to false',
    drivers: [
      'driver-rocking-around',
      'driver-on-my-way',
      'driver-feliz-navidad',
      'driver-hope-you-have-happy-birthday',
      'driver-country-fire',
      'driver-queen-of-the-night',
      'driver-old-souls',
      'driver-its-good-to-be-alive',
      'driver-here-comes-santa-claus',
      'driver-la-cucaracha',
      'driver-happy-birthday-to-you',
      'driver-la-traviata-female',
      'driver-la-traviata-male',
      'driver-amazing',
      'driver-rigoletto',
    ],
  },
  subtle: { description: 'Subtle movements; best with several close faces in one image', drivers: range(1, 19) },
  stitch: { description: 'Works best when stitch is true', drivers: range(1, 33, [28]) },
} as const satisfies Record<string, { description: string; drivers: readonly string[] }>;

export type DriverCategory = keyof typeof DRIVER_BANK;

export const DRIVER_CATEGORIES = Object.keys(DRIVER_BANK) as DriverCategory[];

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
