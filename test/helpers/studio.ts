/**
 * People who sign in to the studio, for the studio's browser tests: an account seeded
 * through the running service's accounts module (its store and password hasher), and
 * signing in by keyboard alone.
 */
import { expect } from 'vitest';
import type { Page } from 'playwright-core';
import type { Services } from '../../src/services.ts';
import { issueKey } from '../../src/users/accounts.ts';
import { normalizeEmail } from '../../src/accounts/email.ts';
import { randomId } from '../../src/clock.ts';
import { userDeps } from './harness.ts';

export interface Person {
  userId: string;
  /** The API key the user was created with. */
  key: string;
  email: string;
  password: string;
}

/** A user with an API key and an account with this email and password. */
export async function seedPerson(services: Services, { email, password, name = null }: { email: string; password: string; name?: string | null }): Promise<Person> {
  const users = userDeps(services);
  const { row, apiKey } = issueKey(users);
  const userId = randomId('usr');
  await users.users.create({ id: userId, name, credits: 100, permissions: [], createdAt: row.createdAt }, row);
  const accounts = services.modules.accounts;
  const created = await accounts.store.createAccount({
    userId,
    email: normalizeEmail(email),
    passwordHash: await accounts.passwords.hash(password),
    createdAt: services.clock.now(),
  });
  if (!created) throw new Error(`seedPerson: no account for ${email} (email taken?)`);
  return { userId, key: apiKey, email: normalizeEmail(email), password };
}

/** The id (or tag) of the element that has focus. */
const focused = (page: Page) => page.evaluate('document.activeElement?.id || document.activeElement?.tagName || ""') as Promise<string>;

/**
 * Signs in on the sign-in page the browser is on, by keyboard only: Tab from the top of the
 * page reaches the skip link first, then the email field (within a few stops), the password
 * field next; Enter submits. Answers the focus stops seen before the email field.
 */
export async function signInByKeyboard(page: Page, person: Pick<Person, 'email' | 'password'>): Promise<string[]> {
  const stops: string[] = [];
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press('Tab');
    const id = await focused(page);
    if (id === 'email') break;
    stops.push(id);
  }
  expect(await focused(page), `Tab reaches the email field; stops before: ${stops.join(', ')}`).toBe('email');
  await page.keyboard.type(person.email);
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('password');
  await page.keyboard.type(person.password);
  await page.keyboard.press('Enter');
  return stops;
}

/** Calls the API as a seeded person, with their API key: `{status, body}` (JSON). */
export function apiAs(base: string, key: string) {
  return async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Basic ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: await res.json() };
  };
}
