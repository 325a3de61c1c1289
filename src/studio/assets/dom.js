// Small DOM builders the studio's pages share. Text goes in through append/textContent only:
// nothing is ever parsed as HTML.
import { showError } from './api.js';

/** A table cell; on a phone its column's name shows before it (studio.css, data-label). */
export function cell(label, ...content) {
  const td = document.createElement('td');
  if (label) td.dataset.label = label;
  td.append(...content);
  return td;
}

/** A time as the reader's locale writes it, in a <time> element. */
export function timeElement(iso) {
  const t = document.createElement('time');
  t.dateTime = iso;
  t.textContent = new Date(iso).toLocaleString();
  return t;
}

/** A link with its text (and a class, if given). */
export function link(href, text, className) {
  const a = document.createElement('a');
  a.href = href;
  if (className) a.className = className;
  a.textContent = text;
  return a;
}

/** The one row of a table whose list is empty: a cell across its `columns`. */
export function emptyRow(columns, ...content) {
  const tr = document.createElement('tr');
  const td = cell('', ...content);
  td.colSpan = columns;
  tr.append(td);
  return tr;
}

/**
 * A page of a list into its tbody: the first page (`more` false) replaces what was there
 * ("Loading…", or the list shown before), a next page adds to it; no rows at all shows `empty()`.
 */
export function fillRows(rows, items, row, empty, more) {
  if (!more) rows.replaceChildren();
  for (const item of items) rows.append(row(item));
  if (!rows.children.length) rows.append(empty());
}

/**
 * A page's status line (role=status, may be null) and error line (role=alert), as
 * components.tsx StatusLines renders them: `say` a text (the error line empties), `fail` with
 * an API answer or an Error (the status line empties; `focus` moves focus to the error).
 */
export function statusLines(status, error, { focus = false } = {}) {
  return {
    say(text) {
      error.textContent = '';
      status.textContent = text;
    },
    fail(what) {
      if (status) status.textContent = '';
      if (what instanceof Error) error.textContent = what.message;
      else showError(error, what);
      if (focus) error.focus();
    },
  };
}
