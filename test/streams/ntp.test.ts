/** The NTP time the stream peer's RTCP sender reports carry (werift's own drops the fraction of a second). */
import { describe, expect, it } from 'vitest';
import { ntpNow } from '../../src/streams/peer.ts';

describe('ntpNow', () => {
  it('puts the seconds since 1900 in the high 32 bits and the fraction of a second in the low 32', () => {
    // 2026-11-24T00:00:00.500Z: 3,973,017,600 s after 1900, and half a second.
    const ntp = ntpNow(Date.UTC(2026, 10, 24, 0, 0, 0, 500));
    expect(Number(ntp >> 32n)).toBe(Math.floor(Date.UTC(2026, 10, 24) / 1000) + 2_208_988_800);
    expect(Number(ntp & 0xffffffffn)).toBe(2 ** 31);
  });

  it('grows by 2^32/1000 per millisecond, across a second boundary too', () => {
    const t = Date.UTC(2026, 10, 24, 0, 0, 0, 999);
    const step = Number(ntpNow(t + 1) - ntpNow(t));
    expect(Math.abs(step - 2 ** 32 / 1000)).toBeLessThan(2);
  });
});
