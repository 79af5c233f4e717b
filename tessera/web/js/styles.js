// Colours and indents given by data attributes, set through the CSSOM: the Content-Security-Policy
// (style-src 'self') refuses inline style attributes in HTML written by a page.

/** Apply `data-bg` (a background colour) and `data-indent` (a left margin in em) under `root`. */
export function applyStyles(root) {
  if (!root) return;
  for (const el of root.querySelectorAll("[data-bg]")) el.style.background = el.dataset.bg;
  for (const el of root.querySelectorAll("[data-indent]")) el.style.marginLeft = `${el.dataset.indent}em`;
}
