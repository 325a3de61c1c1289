/**
 * Known credentials planted by the secret and tool tests. The harness checks, when it closes,
 * that none of them (raw, base64 user:pass, "Bearer x") appears in any response, log line or
 * audit row of that run. Every value is unique enough that a match cannot be a coincidence.
 */
export const CANARY = {
  bearer: 'cnry-bearer-Q7x9Lm2Pz4Kd8Vw1',
  apiKey: 'cnry-apikey-Hs5Tj3Rn6Yb0Gc2',
  basicUser: 'cnry-user-Wq4Zx',
  basicPassword: 'cnry-pass-Nf8Ue1Mo3Ia7',
  accessToken: 'cnry-access-Lp0Kr9Ej5Vt2',
  refreshToken: 'cnry-refresh-Dy6Sg4Ob8Xh1',
  clientSecret: 'cnry-client-Cv3Bn7Am2Qs9',
  rotatedBearer: 'cnry-bearer2-Ui4Op8Lk1Jh6',
  refreshedAccess: 'cnry-access2-Zm5Xn3Cb7Vq0',
  refreshedRefresh: 'cnry-refresh2-Rt6Yu2Io9Pa4',
} as const;

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Every form of every canary that must never be seen. The basic username alone is not a secret. */
export function canaryForms(): string[] {
  const raw = Object.entries(CANARY).filter(([k]) => k !== 'basicUser').map(([, v]) => v);
  return [...raw, b64(`${CANARY.basicUser}:${CANARY.basicPassword}`), ...raw.map(b64)];
}

/** The canary forms found in `text` (empty when clean). */
export function leakedIn(text: string): string[] {
  return canaryForms().filter((f) => text.includes(f));
}
