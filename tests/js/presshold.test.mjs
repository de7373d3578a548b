// Unit tests of presshold.js: a drawing asked during a press waits for the click (a phone's click
// comes after pointerup: a drawing in between would move the board under the finger). node --test

import assert from "node:assert/strict";
import { test } from "node:test";
import { holdRedraws } from "../../src/laizi/web/static/presshold.js";

/** A page whose render() keeps a log, held back while pressing (as table.js's). */
function fakePage(log) {
  const page = {
    pressing: false,
    redraw: false,
    drawn: 0,
    render() {
      if (page.pressing) { page.redraw = true; log.push("held"); return; }
      page.drawn += 1;
      log.push("drawn");
    },
  };
  return page;
}

const tick = (ms = 0) => new Promise((resolve) => setTimeout(resolve, ms));

function setUp(wait = 50) {
  const log = [];
  const page = fakePage(log);
  const root = new EventTarget();
  const win = new EventTarget();
  const clicked = holdRedraws(page, root, win, wait);
  root.addEventListener("click", clicked(() => log.push("clicked")));
  return { log, page, root, win };
}

test("a drawing asked between pointerup and the click waits for the click", async () => {
  const { log, page, root, win } = setUp();
  root.dispatchEvent(new Event("pointerdown"));
  page.render(); // the sound offer, a message arriving
  win.dispatchEvent(new Event("pointerup"));
  await tick(); // the phone's click comes in a later task
  page.render();
  assert.deepEqual(log, ["held", "held"]);
  root.dispatchEvent(new Event("click"));
  assert.deepEqual(log, ["held", "held", "clicked", "drawn"]);
  assert.equal(page.pressing, false);
  await tick(80);
  assert.deepEqual(log, ["held", "held", "clicked", "drawn"], "drawn once, not again by the timer");
});

test("a click whose handler draws is not drawn twice", async () => {
  const log = [];
  const page = fakePage(log);
  const root = new EventTarget();
  const win = new EventTarget();
  const clicked = holdRedraws(page, root, win, 50);
  root.addEventListener("click", clicked(() => { log.push("clicked"); page.render(); }));
  root.dispatchEvent(new Event("pointerdown"));
  page.render();
  win.dispatchEvent(new Event("pointerup"));
  root.dispatchEvent(new Event("click"));
  assert.deepEqual(log, ["held", "clicked", "drawn"]);
});

test("a press that ends in no click lets the drawing go after the wait", async () => {
  const { log, page, root, win } = setUp(30);
  root.dispatchEvent(new Event("pointerdown"));
  page.render();
  win.dispatchEvent(new Event("pointerup"));
  await tick(5);
  assert.deepEqual(log, ["held"]);
  await tick(60);
  assert.deepEqual(log, ["held", "drawn"]);
  assert.equal(page.pressing, false);
});

test("a cancelled press, or the window left, draws at once", () => {
  for (const kind of ["pointercancel", "blur"]) {
    const { log, page, root, win } = setUp();
    root.dispatchEvent(new Event("pointerdown"));
    page.render();
    win.dispatchEvent(new Event(kind));
    assert.deepEqual(log, ["held", "drawn"], kind);
  }
});

test("a press with nothing held draws nothing; a pointerup with no press starts no timer", async () => {
  const { log, page, root, win } = setUp(10);
  win.dispatchEvent(new Event("pointerup"));
  root.dispatchEvent(new Event("pointerdown"));
  win.dispatchEvent(new Event("pointerup"));
  root.dispatchEvent(new Event("click"));
  await tick(30);
  assert.deepEqual(log, ["clicked"]);
  assert.equal(page.pressing, false);
});
