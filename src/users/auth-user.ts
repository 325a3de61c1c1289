/** The caller an API key stands for, as every authenticated verb receives it. */
export interface AuthUser {
  id: string;
  name: string | null;
  permissions: readonly string[];
}
