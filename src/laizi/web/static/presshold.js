// A press is never lost to a redraw.  While a button is held down the page is not drawn again (a
// click whose down and up land on two drawings of a button fires on neither), and the held-back
// drawing waits for the click itself: on a phone the click comes after pointerup, so a drawing
// made in between (the first tap's sound offer grows the bar) would move the board under the
// finger and the click would land on whatever is there now.  A press that ends in no click
// (dragged off, cancelled, the window left) lets the drawing go after `wait` ms or at once.

/**
 * Hold `page.render()` while a press is on `root`: `page.pressing` is set from pointerdown to
 * the click, a render asked meanwhile sets `page.redraw`; `page.drawn` counts drawings.
 * Returns a wrapper for the click handler: it runs the handler, then the held-back drawing if the
 * handler drew nothing.
 */
export function holdRedraws(page, root, win = globalThis, wait = 400) {
  let timer = null;
  const release = () => {
    clearTimeout(timer);
    timer = null;
    if (!page.pressing) return false;
    page.pressing = false;
    const pending = page.redraw;
    page.redraw = false;
    return pending;
  };
  const releaseNow = () => { if (release()) page.render(); };
  root.addEventListener("pointerdown", () => {
    clearTimeout(timer);
    page.pressing = true;
  });
  win.addEventListener("pointerup", () => {
    if (!page.pressing) return;
    clearTimeout(timer);
    timer = setTimeout(releaseNow, wait); // the click, if one comes, releases first
  });
  for (const kind of ["pointercancel", "blur"]) win.addEventListener(kind, releaseNow);
  return (handle) => (event) => {
    const pending = release();
    const before = page.drawn;
    handle(event);
    if (pending && page.drawn === before) page.render();
  };
}
