// The account page: changes the password (PUT /account/password) and lists the person's
// studio sessions (GET /account/sessions), each signed out with a button (DELETE
// /account/sessions/{id}); "This device" is the session of this page. Text only through
// textContent.
import { api, showError } from './api.js';
import { cell, timeElement } from './dom.js';

const $ = (id) => document.getElementById(id);
const form = $('password-form');
const passwordError = $('password-error');
const status = $('account-status');
const sessionsError = $('sessions-error');
const rows = $('sessions-rows');
const heading = $('sessions-heading');


function sessionRow(s) {
  const tr = document.createElement('tr');
  const browser = document.createElement('span');
  browser.textContent = s.user_agent ?? 'unknown browser';
  const where = [browser];
  if (s.current) {
    const mark = document.createElement('strong');
    mark.textContent = ' (this device)';
    where.push(mark);
  }
  const out = document.createElement('button');
  out.type = 'button';
  out.className = 'danger';
  out.textContent = 'Sign out';
  out.setAttribute('aria-label', s.current ? 'Sign out this device' : `Sign out the session signed in ${new Date(s.created_at).toLocaleString()}`);
  out.addEventListener('click', () => signOut(s, out));
  tr.append(
    cell('Browser', ...where),
    cell('Address', s.address ?? 'unknown'),
    cell('Signed in', timeElement(s.created_at)),
    cell('Last seen', timeElement(s.last_seen_at)),
    cell('', out),
  );
  return tr;
}

async function loadSessions() {
  const res = await api('GET', '/account/sessions');
  rows.closest('table').setAttribute('aria-busy', 'false');
  if (res.status !== 200) return showError(sessionsError, res);
  sessionsError.textContent = '';
  rows.replaceChildren(...res.body.sessions.map(sessionRow));
}

async function signOut(s, button) {
  button.disabled = true;
  const res = await api('DELETE', `/account/sessions/${encodeURIComponent(s.id)}`);
  if (res.status !== 204) {
    button.disabled = false;
    return showError(sessionsError, res);
  }
  // This page's own session: nothing here works any more.
  if (s.current) return location.assign('/studio/sign-in');
  status.textContent = 'That session is signed out: its next request is refused.';
  await loadSessions();
  heading.focus();
}

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  passwordError.textContent = '';
  const body = { current_password: form.elements.current_password.value, new_password: form.elements.new_password.value };
  const res = await api('PUT', '/account/password', body);
  if (res.status !== 200) {
    showError(passwordError, res);
    const field = res.body?.details?.[0]?.field;
    (field === 'new_password' ? form.elements.new_password : form.elements.current_password).focus();
    return;
  }
  form.reset();
  const n = res.body.revoked_sessions;
  status.textContent = `Password changed.${n ? ` ${n} other session${n === 1 ? ' was' : 's were'} signed out.` : ''}`;
  await loadSessions();
});

loadSessions().catch((err) => {
  sessionsError.textContent = err.message;
});
