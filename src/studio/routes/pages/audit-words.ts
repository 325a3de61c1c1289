import type { AuditAction } from '../../../audit/contract.ts';

/**
 * Each audit action in words, for the audit page's filter (and, through `data-words`, its
 * rows): one place, so that a new action without words fails the type check.
 */
export const ACTION_WORDS: Readonly<Record<AuditAction, string>> = {
  'secret.created': 'Secret created',
  'secret.updated': 'Secret changed',
  'secret.deleted': 'Secret deleted',
  'secret.used': 'Secret used in a call',
  'secret.refreshed': 'OAuth token refreshed',
  'secret.needs_reauthorization': 'Secret needs reconnecting',
  'secret.connect': 'Account connected (OAuth)',
  'tool.created': 'Tool created',
  'tool.updated': 'Tool changed',
  'tool.deleted': 'Tool deleted',
  'tool.called': 'Tool called',
  'account.sign_in': 'Sign-in',
  'account.signed_out': 'Signed out',
  'account.session_revoked': 'Session signed out from the account page',
  'account.password_changed': 'Password change',
  'account.invite_accepted': 'Password set from a link',
};
