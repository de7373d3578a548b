// Short sounds made in the page with WebAudio (nothing is fetched): your turn, a claim offer, a
// win. Off until the player turns them on (the choice is kept in this browser).

let ctx = null;

export function soundOn() {
  return localStorage.getItem("laizi.sound") === "on";
}

export function setSound(on) {
  localStorage.setItem("laizi.sound", on ? "on" : "off");
}

/** Notes as [frequency Hz, start s, length s]. */
const TUNES = {
  turn: [[660, 0, 0.09]],
  claim: [[880, 0, 0.07], [990, 0.1, 0.09]],
  win: [[523, 0, 0.12], [659, 0.12, 0.12], [784, 0.24, 0.12], [1047, 0.36, 0.22]],
};

/** Make the page's audio ready during a click (a browser lets a page sound only after a gesture). */
export function primeAudio() {
  try {
    ctx = ctx || new (window.AudioContext || window.webkitAudioContext)();
    if (ctx.state === "suspended") ctx.resume();
  } catch {
    ctx = null; // no audio here
  }
}

/** Play `notes` ([frequency Hz, start s, length s]) now, whatever the setting. */
export function playNotes(notes, type = "triangle", peak = 0.18) {
  try {
    primeAudio();
    if (!ctx) return;
    const now = ctx.currentTime;
    for (const [freq, start, length] of notes) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = type;
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(peak, now + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(ctx.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.02);
    }
  } catch {
    // no audio here: the game goes on silently
  }
}

/** Play one of the tunes if sounds are on (and the browser allows audio). */
export function sound(name) {
  if (soundOn() && TUNES[name]) playNotes(TUNES[name]);
}
