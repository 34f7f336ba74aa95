/**
 * The site limit's allocator (README.md, "How the limit is divided"): pure, so every rule is
 * unit-tested without a database. `allocate` divides a limit among the sessions charging under it;
 * `plan` decides which of the new shares may be sent now without the chargers' limits ever
 * summing above the limit in between.
 */

/** What the charger did with the last share sent for the session's transaction. */
export type ProfileState = "pending" | "installed" | "rejected" | "unknown";

export type Session = {
  /** the connector's ID (one running session per connector) */
  key: number;
  startedAt: Date;
  minW: number;
  maxW: number;
  phases: 1 | 3;
  /** the latest measured draw, W; null when the charger reports none */
  drawW: number | null;
  /** the state of the last share sent for this transaction; null: none sent yet */
  state: ProfileState | null;
  /** tenths of an ampere per phase last sent for this transaction; null: none */
  sentDeciA: number | null;
  /**
   * the most the charger may run at apart from a pending send: its maximum until a share is
   * installed, then the installed one (after an unknown answer, the larger of the two)
   */
  believedW: number;
  /** whether the charger installed a share for this transaction (until then it may draw its maximum) */
  confirmed: boolean;
  /** false: the station has no live connection, nothing is sent to it now (default true) */
  online?: boolean;
};

export type Share = {
  key: number;
  /** the share, W, after rounding its current down to 0.1 A */
  allocatedW: number;
  /** the share per phase in tenths of an ampere (what is sent: A = deciA / 10) */
  deciA: number;
  /** what is counted against the limit now beyond the share (a rejected or unconfirmed charger) */
  heldBackW: number;
  /** what this session counts against the limit now: the share, or more while not confirmed */
  countedW: number;
};

/** The draw headroom: a car drawing less than its share keeps its draw plus this much. */
export function headroomW(drawW: number) {
  return Math.max(1_000, Math.round(drawW * 0.25));
}

/** A draw change that asks for a recomputation: at least half the headroom. */
export function drawChangedMaterially(before: number | null, now: number | null) {
  if (now === null) return false;
  if (before === null) return true;
  return Math.abs(now - before) >= headroomW(before) / 2;
}

/** W to tenths of an ampere per phase, rounded down: A = W / (V × phases). */
export function toDeciA(w: number, voltageV: number, phases: number) {
  return Math.max(0, Math.floor((w * 10) / (voltageV * phases) + 1e-9));
}
/** Tenths of an ampere per phase back to W, rounded down. */
export function fromDeciA(deciA: number, voltageV: number, phases: number) {
  return Math.floor((deciA * voltageV * phases) / 10);
}

/** What a session counts against the limit now (README.md, "A charger's answer"). */
export function countedNowW(s: Session, voltageV: number) {
  if (s.state === "rejected") return s.maxW;
  if (s.state === "pending" && s.sentDeciA !== null)
    return Math.max(s.believedW, fromDeciA(s.sentDeciA, voltageV, s.phases));
  return s.believedW;
}

/** Water-filling: `budget` split equally on top of each session's minimum, capped (see `allocate`). */
function fairShares(budget: number, sessions: readonly Session[]): Map<number, number> {
  const shares = new Map<number, number>();
  const ordered = [...sessions].sort(
    (a, b) => a.startedAt.getTime() - b.startedAt.getTime() || a.key - b.key,
  );
  const granted: { s: Session; w: number; cap: number }[] = [];
  for (const s of ordered) {
    const min = Math.min(s.minW, s.maxW);
    if (budget > 0 && budget >= min) {
      budget -= min;
      const drawCap = s.drawW === null ? s.maxW : s.drawW + headroomW(s.drawW);
      granted.push({ s, w: min, cap: Math.max(min, Math.min(s.maxW, drawCap)) });
    } else shares.set(s.key, 0);
  }
  // an equal increment for every session below its cap, again with what the capped ones left
  let open = granted.filter((g) => g.cap > g.w);
  while (budget > 1e-6 && open.length) {
    const step = budget / open.length;
    const capped = open.filter((g) => g.cap - g.w <= step);
    if (!capped.length) {
      for (const g of open) g.w += step;
      break;
    }
    for (const g of capped) {
      budget -= g.cap - g.w;
      g.w = g.cap;
    }
    open = open.filter((g) => g.cap > g.w);
  }
  for (const g of granted) shares.set(g.s.key, g.w);
  return shares;
}

/**
 * The fair shares, in W after rounding each share's current down to 0.1 A per phase: `fair` is
 * what each session gets once every charger confirmed (a rejected one held at its maximum, taken
 * off the limit first); `held` is what the confirmed ones get while the unconfirmed ones' maximums
 * are held back from them (equal to `fair` when every charger confirmed).
 */
function fairAndHeld(limitW: number, voltageV: number, sessions: readonly Session[]) {
  let budget = limitW;
  const fair = new Map<number, number>();
  const held = new Map<number, number>();
  for (const s of sessions)
    if (s.state === "rejected") {
      fair.set(s.key, 0);
      held.set(s.key, 0);
      budget -= s.maxW;
    }
  const active = sessions.filter((s) => s.state !== "rejected");
  const all = fairShares(budget, active);
  const unconfirmed = active.filter((s) => !s.confirmed);
  const heldBack = unconfirmed.reduce((sum, s) => sum + s.maxW, 0);
  const confirmed = unconfirmed.length
    ? fairShares(
        budget - heldBack,
        active.filter((s) => s.confirmed),
      )
    : all;
  const round = (w: number, s: Session) =>
    fromDeciA(toDeciA(w, voltageV, s.phases), voltageV, s.phases);
  for (const s of active) {
    fair.set(s.key, round(all.get(s.key) ?? 0, s));
    held.set(s.key, round((s.confirmed ? confirmed : all).get(s.key) ?? 0, s));
  }
  return { fair, held };
}

/**
 * Divides `limitW` among `sessions`, in W after rounding each share's current down to 0.1 A per
 * phase. A rejected session is held at its connector's maximum (taken off the limit first, no
 * share). The others, earliest start first, get their minimum while it fits (the rest get 0:
 * paused); what remains is split equally on top of the minimums, each capped at its connector's
 * maximum and at its measured draw plus the headroom, leftovers going round again. A session whose
 * charger has not confirmed a share yet gets that fair share, but the confirmed ones divide only
 * what its maximum leaves (it may draw that much until it confirms): held back from them.
 */
export function allocate(
  limitW: number,
  voltageV: number,
  sessions: readonly Session[],
): Map<number, number> {
  return fairAndHeld(limitW, voltageV, sessions).held;
}

/** The tolerance band around a fair share (README.md, "The tolerance band"). */
export type Band = {
  /** the band's floor in amperes per phase (default 1 A) */
  minA: number;
  /** the band as a fraction of the fair share (default 0.1: 10 %) */
  fraction: number;
};
export const DEFAULT_BAND: Band = { minA: 1, fraction: 0.1 };

/** The band around a fair share, W: the larger of `minA` on the session's phases and `fraction` of it. */
export function bandW(fairW: number, voltageV: number, phases: number, band = DEFAULT_BAND) {
  return Math.max(Math.ceil(band.minA * voltageV * phases), Math.round(fairW * band.fraction));
}

export type Plan = {
  shares: Share[];
  /** the sessions whose new share is sent now */
  send: { key: number; deciA: number; w: number }[];
  /** what is counted against the limit once the sends are made */
  countedW: number;
};

/**
 * The shares and what to send now (README.md, "The tolerance band" and "A charger's answer").
 *
 * A confirmed session keeps the share it holds while that is within the band of its fair share
 * (the share it gets once every charger confirmed); outside the band it is sent its fair share.
 * When what is counted once the sends are answered (the unconfirmed sessions at their maximum)
 * exceeds the limit, room is taken from the fewest sessions: those furthest above their fair share
 * first, each down to its fair share less the band, until it fits; only then further, down to the
 * share `allocate` gives while the unconfirmed maximums are held back.
 *
 * A session whose last share is still pending gets nothing new until it is answered (the answer
 * asks for a recomputation); a rejected one is never sent again in its transaction, nor anything
 * to an offline station. A decrease is sent at once (until answered it counts at the larger of
 * old and new, so the sum does not move), an increase only while the sum of what is counted, with
 * it, stays within the limit (the rest wait for the decreases' answers). A session whose charger
 * confirmed nothing yet is counted at its maximum; it is sent its share, or only what the others'
 * limits leave free until their decreases are answered (possibly 0: paused for a moment), so the
 * limits the chargers accept never sum above the limit.
 */
export function plan(
  limitW: number,
  voltageV: number,
  sessions: readonly Session[],
  band: Band = DEFAULT_BAND,
): Plan {
  const { fair, held } = fairAndHeld(limitW, voltageV, sessions);
  let counted = 0;
  /** what is counted once every send, this plan's and those pending, is answered */
  let eventual = 0;
  const out = new Map<number, Share>();
  const firsts: Session[] = [];
  const nowOf = new Map<number, number>();
  const movable: {
    s: Session;
    now: number;
    fairW: number;
    /** the share this session is given: the one it holds (kept), or one sent now */
    w: number;
    kept: boolean;
    /** its fair share less the band (not below its minimum) */
    lo: number;
  }[] = [];
  for (const s of sessions) {
    const now = countedNowW(s, voltageV);
    nowOf.set(s.key, now);
    counted += now;
    const f = fair.get(s.key) ?? 0;
    const share = (w: number): Share => ({
      key: s.key,
      allocatedW: w,
      deciA: s.state === "rejected" ? 0 : toDeciA(w, voltageV, s.phases),
      heldBackW: Math.max(0, now - w),
      countedW: now,
    });
    const sentW = s.sentDeciA === null ? null : fromDeciA(s.sentDeciA, voltageV, s.phases);
    if (s.state === "rejected" || s.state === "pending" || s.online === false) {
      const pending = s.state === "pending" && sentW !== null;
      out.set(s.key, share(pending ? sentW : (held.get(s.key) ?? 0)));
      // a pending first share (maybe 0 A, what was free) is followed by the fair share
      eventual += pending ? (s.confirmed ? sentW : Math.max(sentW, f)) : now;
      continue;
    }
    if (!s.confirmed) {
      // counted at its maximum until it confirms; sent its fair share, or what is free
      firsts.push(s);
      out.set(s.key, share(f));
      eventual += f;
      continue;
    }
    const b = bandW(f, voltageV, s.phases, band);
    // on the 0.1 A grid, rounded up (so it stays within the band)
    const lo =
      f === 0
        ? 0
        : fromDeciA(
            Math.ceil((Math.max(Math.min(f, s.minW), f - b) * 10) / (voltageV * s.phases) - 1e-9),
            voltageV,
            s.phases,
          );
    const kept = sentW !== null && sentW >= lo && sentW <= f + b;
    const w = kept ? sentW : f;
    movable.push({ s, now, fairW: f, w, kept, lo });
    eventual += kept ? now : w;
  }
  if (eventual > limitW) {
    // room is needed: from the sessions furthest above their fair share first, each down to the
    // band's floor, until what is counted fits
    const order = [...movable].sort((a, b) => b.w - b.fairW - (a.w - a.fairW) || a.s.key - b.s.key);
    for (const m of order) {
      if (eventual <= limitW) break;
      if (m.w <= m.lo) continue;
      eventual -= (m.kept ? m.now : m.w) - m.lo;
      m.w = m.lo;
      m.kept = false;
    }
  }
  const send: Plan["send"] = [];
  const increases: (Plan["send"][number] & { from: number })[] = [];
  for (const m of movable) {
    const deciA = toDeciA(m.w, voltageV, m.s.phases);
    const sh: Share = {
      key: m.s.key,
      allocatedW: m.w,
      deciA,
      heldBackW: Math.max(0, m.now - m.w),
      countedW: m.now,
    };
    out.set(m.s.key, sh);
    if (m.s.sentDeciA !== null && m.s.sentDeciA === deciA) continue;
    if (m.w <= m.now) send.push({ key: m.s.key, deciA, w: m.w });
    else increases.push({ key: m.s.key, deciA, w: m.w, from: m.now });
  }
  // smallest increases first: more sessions get theirs when not all fit
  increases.sort((a, b) => a.w - a.from - (b.w - b.from) || a.key - b.key);
  for (const inc of increases) {
    if (counted + (inc.w - inc.from) > limitW) continue;
    counted += inc.w - inc.from;
    send.push({ key: inc.key, deciA: inc.deciA, w: inc.w });
    const sh = out.get(inc.key)!;
    sh.countedW = inc.w;
    sh.heldBackW = 0;
  }
  // what the others' limits leave free for each unconfirmed session (itself counted at its maximum)
  const acceptedElsewhere = (key: number) =>
    sessions.reduce(
      (sum, o) =>
        o.key === key ? sum : sum + (o.confirmed || o.state === "rejected" ? nowOf.get(o.key)! : 0),
      0,
    );
  let granted = 0;
  for (const s of firsts) {
    const share = out.get(s.key)!;
    const free = Math.max(0, limitW - acceptedElsewhere(s.key) - granted);
    const deciA = Math.min(share.deciA, toDeciA(free, voltageV, s.phases));
    if (s.sentDeciA !== null && s.sentDeciA === deciA) continue;
    const w = fromDeciA(deciA, voltageV, s.phases);
    granted += w;
    send.push({ key: s.key, deciA, w });
  }
  return { shares: sessions.map((s) => out.get(s.key)!), send, countedW: counted };
}
