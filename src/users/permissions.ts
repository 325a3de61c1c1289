/** Permissions a user can be granted; each gates one feature. */
export const PERMISSIONS = {
  stitch: 'animate with config.stitch: true (the result is composited back into the full image)',
} as const;

export type Permission = keyof typeof PERMISSIONS;

export const isPermission = (p: string): p is Permission => Object.hasOwn(PERMISSIONS, p);
