/** The caller an API key stands for, as every authenticated verb receives it. */
export interface AuthUser {
  id: string;
  name: string | null;
  permissions: readonly string[];
  /**
   * The id (never the key) of the API key that authenticated the request; rate limits apply
   * per key. Absent only where a caller is built without a key (tests that set a user).
   */
  keyId?: string;
}
