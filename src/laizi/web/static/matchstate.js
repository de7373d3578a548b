// The lobby's match card as a state machine (no page, no socket: node --test tests/js/): what the
// card shows follows from the person's clicks and the server's queue messages
// (docs/protocol.md, "Matchmaking").
//
//   idle ──find──▶ connecting ──queued──▶ queued ──matched (room null)──▶ offered
//   offered ──accept (a click)──▶ accepted ──matched (room)──▶ matched (→ the table)
//   lapsed kept / requeued ▶ queued · lapsed barred / left, unqueued, a refusal ▶ idle
//
// Nothing accepts a match for the person: an offer stays until they click 接受 / Accept (or
// 拒绝 / Decline) or its deadline passes — as on 天凤 and 雀魂, a match found while one is away
// must not seat them at a table they will not play.

export const REQUEUE = "laizi.requeue"; // sessionStorage {preset, kind}: 再次匹配 from a table
export const FLASH = "laizi.flash"; // sessionStorage: matched while hidden, the table flashes on

export const PHASES = ["idle", "connecting", "queued", "offered", "accepted", "matched"];

/** The card before anything happened. */
export function initial() {
  return { phase: "idle", preset: null, kind: null, notice: null, error: null, key: null };
}

/** Ranked is for accounts; casual welcomes guests. */
export function mayQueue(kind, loggedIn) {
  return kind === "casual" || (kind === "ranked" && loggedIn === true);
}

/** The card after `event` at `now` (ms): the person's {type: "find" | "accept" | "cancel"} or
 * a server message. Returns a new state; the old one is left as it was. */
export function step(state, event, now) {
  const s = { ...state };
  switch (event.type) {
    case "find":
      return { ...initial(), phase: "connecting", preset: event.preset, kind: event.kind, key: state.key };
    case "cancel":
      return { ...s, phase: "idle", notice: null, error: null };
    case "accept":
      return s.phase === "offered" ? { ...s, phase: "accepted" } : s;
    case "queued":
      return {
        ...s, phase: "queued", preset: event.preset, kind: event.kind, tier: event.tier,
        position: event.position, waiting: Number(event.waiting), estimate: Number(event.estimate_s),
        at: now, key: event.key ?? s.key, error: null, deadline: null,
      }; // a lapsed match's notice stays while the person is back in the queue
    case "matched":
      if (event.room == null) {
        return {
          ...s, phase: "offered", match: event.match, seat: event.seat, people: event.people,
          preset: event.preset, kind: event.kind, deadline: now + Number(event.deadline_s) * 1000,
          notice: null, error: null,
        };
      }
      return { ...s, phase: "matched", match: event.match, room: event.room, seat: event.seat, token: event.token ?? null, notice: null };
    case "accepted":
      return s.phase === "offered" || s.phase === "accepted" ? { ...s, phase: "accepted" } : s;
    case "lapsed": {
      const notice = { key: `lapsed_${event.outcome}`, args: event.outcome === "barred" ? [event.seconds] : [] };
      const back = event.outcome === "kept" || event.outcome === "requeued";
      return { ...s, phase: back ? "queued" : "idle", notice, at: now, waiting: back ? s.waiting : 0 };
    }
    case "unqueued":
      if (s.phase === "matched") return s; // sitting down at the matched table
      return { ...s, phase: "idle", notice: { key: `unqueued_${event.reason}`, args: [] } };
    case "error":
      // A refused queue (account_required, queue_cooldown, at_table…) leaves nothing queued.
      return { ...s, phase: s.phase === "connecting" ? "idle" : s.phase, error: event };
    default:
      return s;
  }
}

/** The live numbers of a state at `now` (ms): seconds waited, the estimate counting down, and
 * the offer's seconds left — whole seconds, never below zero. */
export function clocks(state, now) {
  const since = state.at != null ? Math.max(0, (now - state.at) / 1000) : 0;
  return {
    waited: Math.floor((state.waiting || 0) + since),
    estimate: Math.max(0, Math.round((state.estimate || 0) - since)),
    offer: state.deadline != null ? Math.max(0, Math.ceil((state.deadline - now) / 1000)) : 0,
  };
}

/** GET /api/queue's answer as the card's rows for one preset and kind: every tier the server
 * names, in its order, with how many wait there (0 where nobody does). */
export function tierRows(counts, preset, kind) {
  const tiers = (counts && counts.tiers) || [];
  const queues = (counts && counts.queues) || [];
  return tiers.map((tier) => ({
    id: tier.id,
    name: { zh: tier.zh, en: tier.en },
    waiting: queues.filter((q) => q.preset === preset && q.kind === kind && q.tier === tier.id)
      .reduce((n, q) => n + q.waiting, 0),
  }));
}
