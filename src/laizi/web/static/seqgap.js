// Sequence gaps (docs/protocol.md, "Reconnecting"): every `event` a viewer gets carries the next
// `seq` of its stream. One that skips ahead means messages were missed; the events from there on
// are held back and the server asked to send again what follows the last one seen (`resync`).

/**
 * What to do with a server message, given the last sequence number seen (null: none yet).
 * Returns {keep, lastSeq, resync}: keep the message for the page; the new last seq; send a
 * `resync` from that seq (only once per gap: `asked` is the seq a resync was last asked from).
 */
export function checkSeq(msg, lastSeq, asked = null) {
  if (msg.type === "snapshot") return { keep: true, lastSeq: msg.seq, resync: false };
  if (msg.type !== "event" || lastSeq == null) {
    return { keep: true, lastSeq: msg.type === "event" ? msg.seq : lastSeq, resync: false };
  }
  if (msg.seq === lastSeq + 1) return { keep: true, lastSeq: msg.seq, resync: false };
  if (msg.seq <= lastSeq) return { keep: false, lastSeq, resync: false }; // sent again: seen
  return { keep: false, lastSeq, resync: asked !== lastSeq };
}
