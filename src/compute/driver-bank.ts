/**
 * The driver bank's data: categories and their drivers. It lives with compute because the
 * renderer plays these drivers; the API's `bank://` URLs are resolved in
 * src/animations/driver-bank.ts.
 */

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
