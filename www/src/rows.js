// Long lists (the planned order of a 7,000-op graph) render only the rows in view: empty rows
// keep the list's scroll height, and rows are rebuilt as it scrolls. Short lists
// render every row. Rows have one fixed height (style.css: .po-order li, .po-live li).

const ROW_H = 19;
const ALL_UP_TO = 500;
const MARGIN = 30;
const VIEW_H = 300; // style.css: max-height of .po-order, .po-live

export class Rows {
  /** `list`: the scrolling <ol>/<ul>. */
  constructor(list) {
    this.list = list;
    this.count = 0;
    this.row = null;
    this.first = 0;
    this.last = 0;
    this.pending = false;
    this.scrolled = false;
    list.addEventListener('scroll', () => {
      this.scrolled = true;
      if (this.count <= ALL_UP_TO || this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => {
        this.pending = false;
        this.render();
      });
    });
  }

  /** Shows `count` rows; `row(i)` is the HTML of row i (one <li>). */
  set(count, row) {
    this.count = count;
    this.row = row;
    // From the top; the scroll position is reset after the next layout (reading or writing it
    // now would make the browser lay the page out in the middle of drawing it).
    this.render(true, 0);
    if (this.scrolled) {
      this.scrolled = false;
      requestAnimationFrame(() => { this.list.scrollTop = 0; });
    }
  }

  render(force = false, scrollTop = null) {
    const n = this.count;
    let first = 0;
    let last = n;
    if (n > ALL_UP_TO) {
      const top = scrollTop ?? this.list.scrollTop;
      first = Math.max(0, Math.floor(top / ROW_H) - MARGIN);
      last = Math.min(n, first + Math.ceil(VIEW_H / ROW_H) + 2 * MARGIN);
    }
    if (!force && first === this.first && last === this.last) return;
    this.first = first;
    this.last = last;
    // Empty rows above and below stand for the rows not drawn, so the list scrolls as if all were.
    const gap = (rows) => (rows > 0 ? `<li class="po-gap" aria-hidden="true" style="height:${rows * ROW_H}px"></li>` : '');
    const html = [gap(first)];
    for (let i = first; i < last; i++) html.push(this.row(i));
    html.push(gap(n - last));
    this.list.innerHTML = html.join('');
  }

  /** Scrolls row i into view (rendering it). */
  reveal(i) {
    if (i < 0 || i >= this.count) return;
    const top = i * ROW_H;
    const h = VIEW_H;
    if (top < this.list.scrollTop || top + ROW_H > this.list.scrollTop + h) this.list.scrollTop = Math.max(0, top - h / 2);
    this.render();
  }
}
