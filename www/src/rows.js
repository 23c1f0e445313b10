// Long lists (the planned order of a 7,000-op graph) render only the rows in view: the list
// keeps its scroll height through its padding, and rows are rebuilt as it scrolls. Short lists
// render every row. Rows have one fixed height (style.css: .po-order li, .po-live li).

const ROW_H = 19;
const ALL_UP_TO = 500;
const MARGIN = 30;

export class Rows {
  /** `list`: the scrolling <ol>/<ul>. */
  constructor(list) {
    this.list = list;
    this.count = 0;
    this.row = null;
    this.first = 0;
    this.last = 0;
    this.pending = false;
    list.addEventListener('scroll', () => {
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
    this.list.scrollTop = 0;
    this.render(true);
  }

  render(force = false) {
    const n = this.count;
    let first = 0;
    let last = n;
    if (n > ALL_UP_TO) {
      const h = this.list.clientHeight || 300;
      first = Math.max(0, Math.floor(this.list.scrollTop / ROW_H) - MARGIN);
      last = Math.min(n, first + Math.ceil(h / ROW_H) + 2 * MARGIN);
    }
    if (!force && first === this.first && last === this.last) return;
    this.first = first;
    this.last = last;
    const html = [];
    for (let i = first; i < last; i++) html.push(this.row(i));
    this.list.style.paddingTop = n > ALL_UP_TO ? `${first * ROW_H}px` : '';
    this.list.style.paddingBottom = n > ALL_UP_TO ? `${(n - last) * ROW_H}px` : '';
    this.list.innerHTML = html.join('');
  }

  /** Scrolls row i into view (rendering it). */
  reveal(i) {
    if (i < 0 || i >= this.count) return;
    const top = i * ROW_H;
    const h = this.list.clientHeight || 300;
    if (top < this.list.scrollTop || top + ROW_H > this.list.scrollTop + h) this.list.scrollTop = Math.max(0, top - h / 2);
    this.render();
  }
}
