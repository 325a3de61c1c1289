// Small DOM builders the studio's pages share. Text goes in through append/textContent only:
// nothing is ever parsed as HTML.

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
