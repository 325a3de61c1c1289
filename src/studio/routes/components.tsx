/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from 'hono/jsx';

// The pieces the studio's pages share: a page's script fills them (by their ids) through the
// public API; these only give each page the same markup, roles and wording.

/** Shown when scripts do not run: every studio page works by calling the API from the browser. */
export function NeedsScript({ children = 'it calls the API from your browser.' }: { children?: Child }) {
  return (
    <noscript>
      <p class="error">This page needs JavaScript: {children}</p>
    </noscript>
  );
}

/**
 * A page's (or a part's) live status line (role=status, polite) and its error line (role=alert),
 * filled by its script. `focusable` lets the script move focus to the status line, or to both.
 */
export function StatusLines({ status, error, focusable, children }: { status?: string; error: string; focusable?: 'status' | 'both'; children?: Child }) {
  return (
    <>
      {status ? (
        <p id={status} class="status" role="status" aria-live="polite" tabindex={focusable ? -1 : undefined}>
          {children}
        </p>
      ) : null}
      <p id={error} class="error" role="alert" tabindex={focusable === 'both' ? -1 : undefined}></p>
    </>
  );
}

/** A column's name; `{ hidden }` is read to screen readers only (an actions or picture column). */
export type Column = string | { hidden: string };

interface ListTableProps {
  /** The id of the tbody the script fills; it shows "Loading…" until then. */
  rows: string;
  columns: readonly Column[];
  /**
   * The h2 that names the table, just before it: focusable (a script moves focus to it when the
   * row that had it goes), or `hidden`, read to screen readers only.
   */
  heading?: { id: string; text: string; hidden?: boolean };
  /** Else the id of a heading elsewhere that names the table, or else `label`. */
  labelledBy?: string;
  label?: string;
  id?: string;
  class?: string;
  /** The "Show more" button the script shows while the API gives a next page's token. */
  more?: { id: string; text: string };
}

/** A list the script fills from the API: busy (aria-busy) until its first page is in. */
export function ListTable({ rows, columns, heading, labelledBy, label, id, class: className, more }: ListTableProps) {
  return (
    <>
      {heading ? (
        <h2 id={heading.id} class={heading.hidden ? 'visually-hidden' : undefined} tabindex={heading.hidden ? undefined : -1}>
          {heading.text}
        </h2>
      ) : null}
      <table id={id} class={className} aria-label={label} aria-labelledby={heading?.id ?? labelledBy} aria-busy="true">
        <thead>
          <tr>
            {columns.map((column) => (
              <th scope="col">{typeof column === 'string' ? column : <span class="visually-hidden">{column.hidden}</span>}</th>
            ))}
          </tr>
        </thead>
        <tbody id={rows}>
          <tr>
            <td colspan={columns.length}>Loading…</td>
          </tr>
        </tbody>
      </table>
      {more ? (
        <p>
          <button id={more.id} type="button" class="secondary" hidden>
            {more.text}
          </button>
        </p>
      ) : null}
    </>
  );
}

interface ConfirmDialogProps {
  /** The ids' stem: `{id}-dialog`, `{id}-title`, `{id}-text` (confirm.js opens it by `{id}-dialog`). */
  id: string;
  title: string;
  /** The confirming button's text and the dialog's returnValue when it is pressed. */
  confirm: string;
  value: string;
  /** What happens, said plainly; the element ids in it are the script's to fill. */
  children: Child;
}

/** A confirmation before something that cannot be undone: Cancel has the focus, Escape cancels. */
export function ConfirmDialog({ id, title, confirm, value, children }: ConfirmDialogProps) {
  return (
    <dialog id={`${id}-dialog`} aria-labelledby={`${id}-title`} aria-describedby={`${id}-text`}>
      <form method="dialog">
        <h2 id={`${id}-title`}>{title}</h2>
        <p id={`${id}-text`}>{children}</p>
        <div class="row">
          <button value="cancel" class="secondary" autofocus>
            Cancel
          </button>
          <button value={value} class="danger solid">
            {confirm}
          </button>
        </div>
      </form>
    </dialog>
  );
}
