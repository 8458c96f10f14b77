import { type GlobalWindow, globalWindowsKey, parseGlobalWindow, regionShare, type RegionWindow, regionWindow, tenantKeyPrefix } from '@tollgate/limiter';
import type { ScriptClient } from '@tollgate/lua-script';
import { grants, releases, type WindowView } from './rebalance';

/** A region's Redis as the coordinator reaches it. */
export interface RegionLink {
  name: string;
  client: ScriptClient & { zrangebyscore(key: string, min: number | string, max: number | string): Promise<string[]> };
}

export interface CoordinatorOptions {
  /** The tenants (ids) a policy that is one quota across regions applies to: whose windows are looked for. */
  tenants: () => Promise<readonly string[]>;
  /** Epoch ms: which windows are over (the regions decide on their own Redis's clock). */
  now?: () => number;
}

/** What one round did, over every window it rebalanced. */
export interface RoundReport {
  windows: number;
  released: number;
  granted: number;
  /** Regions whose Redis did not answer this round (their allowances stayed reserved). */
  unreachable: string[];
}

/** A window the coordinator rebalances: what it knows of each region, and their last readings (for the demand). */
interface Tracked {
  window: GlobalWindow;
  views: WindowView[];
  generations: number[];
  seen: { count: number; denied: number }[];
  /** Per region, whether it answered a call about this window (else what it holds is only bounded by the others'). */
  heard: boolean[];
  /**
   * Per region, a grant whose answer was lost and the generation it named: it may still land while the allowance is of
   * that generation, so it stays held by the region until a later call moved units there (the grant is then stale).
   */
  lost: { units: number; generation: number }[];
}

/**
 * The coordinator of one quota across regions (docs/adr/0025-one-quota-across-regions.md), in the worker of the home
 * region: each round (REBALANCE_MS) it finds the windows of global limits charged in the current window anywhere (the
 * sorted set each region's limit script adds a window to, `globalWindowsKey`, of each tenant a global policy applies
 * to), reads each region's count, allowance and denials of each window (lua/region-allowance.lua), and moves units by
 * the safe rules of rebalance.ts: releases first, each answered by the region's own Redis, then grants of what is
 * free. A region that does not answer keeps its allowance, which stays reserved.
 */
export class RegionCoordinator {
  private readonly windows = new Map<string, Tracked>();
  private readonly now: () => number;

  constructor(
    private readonly regions: readonly RegionLink[],
    private readonly options: CoordinatorOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** One round over every window in force. */
  async round(): Promise<RoundReport> {
    const now = this.now();
    for (const [id, tracked] of this.windows) if (tracked.window.end <= now) this.windows.delete(id);
    const tenants = await this.options.tenants();
    // A region whose windows cannot be read is unreachable this round, whether or not a window is in force.
    const unreachable = new Set<string>();
    const found = await Promise.all(
      this.regions.map((region) =>
        this.windowsIn(region, tenants, now).catch(() => {
          unreachable.add(region.name);
          return [];
        }),
      ),
    );
    for (const window of found.flat()) {
      const id = `${window.ruleKey} ${window.start}`;
      if (!this.windows.has(id)) this.windows.set(id, this.track(window));
    }
    const report: RoundReport = { windows: this.windows.size, released: 0, granted: 0, unreachable: [] };
    for (const tracked of this.windows.values()) await this.rebalance(tracked, report, unreachable);
    report.unreachable = this.regions.map((r) => r.name).filter((name) => unreachable.has(name));
    return report;
  }

  /** What the coordinator holds for each region of a window (tests read it). */
  viewsOf(window: Pick<GlobalWindow, 'ruleKey' | 'start'>): readonly WindowView[] | undefined {
    return this.windows.get(`${window.ruleKey} ${window.start}`)?.views;
  }

  /** The windows of `tenants` that `region` charged in and that have not ended. */
  private async windowsIn(region: RegionLink, tenants: readonly string[], now: number): Promise<GlobalWindow[]> {
    const members = await Promise.all(tenants.map((id) => region.client.zrangebyscore(globalWindowsKey(tenantKeyPrefix(id)), `(${now}`, '+inf')));
    return members.flat().flatMap((member) => parseGlobalWindow(member) ?? []);
  }

  /** A window first seen: every region holds its share, as it does before the coordinator moved anything. */
  private track(window: GlobalWindow): Tracked {
    const count = this.regions.length;
    return {
      window,
      views: this.regions.map((_, index) => ({ reachable: false, count: 0, allowance: regionShare(window.limit, { index, count }), demand: 0 })),
      generations: this.regions.map(() => 0),
      seen: this.regions.map(() => ({ count: 0, denied: 0 })),
      heard: this.regions.map(() => false),
      lost: this.regions.map(() => ({ units: 0, generation: 0 })),
    };
  }

  private async rebalance(tracked: Tracked, report: RoundReport, unreachable: Set<string>): Promise<void> {
    const { window, views } = tracked;
    const readings = await Promise.all(this.regions.map((_, i) => this.call(tracked, i, { operation: 'read' })));
    readings.forEach((reading, i) => {
      const view = views[i] as WindowView;
      if (!reading) {
        view.reachable = false;
        unreachable.add((this.regions[i] as RegionLink).name);
        return;
      }
      const last = tracked.seen[i] as { count: number; denied: number };
      view.demand = Math.max(0, reading.count - last.count) + Math.max(0, reading.denied - last.denied);
      tracked.seen[i] = { count: reading.count, denied: reading.denied };
      view.reachable = true;
    });
    this.reserveUnheard(tracked);
    for (const move of releases(window.limit, views)) {
      if (!('release' in move)) continue;
      const reply = await this.call(tracked, move.region, { operation: 'release', to: move.release, generation: tracked.generations[move.region] as number });
      // No answer: it may have released or not; its allowance stays the higher of the two, reserved.
      if (reply) report.released += reply.moved;
      else (views[move.region] as WindowView).reachable = false;
    }
    for (const move of grants(window.limit, views)) {
      if (!('grant' in move)) continue;
      const view = views[move.region] as WindowView;
      // Held by the region from now on, whatever becomes of the call: an answer says what it holds.
      view.allowance += move.grant;
      const generation = tracked.generations[move.region] as number;
      const reply = await this.call(tracked, move.region, { operation: 'grant', units: move.grant, generation });
      if (reply) report.granted += reply.moved;
      else tracked.lost[move.region] = { units: move.grant, generation };
    }
  }

  /**
   * Regions that never answered about this window (cut off since it started, or since this coordinator started: it may
   * have granted them units before a restart) hold at most what the others do not: all of it stays reserved for them,
   * so nothing is granted in the window until they answer (the others may still release).
   */
  private reserveUnheard(tracked: Tracked): void {
    const unheard = tracked.views.flatMap((view, i) => (!view.reachable && !tracked.heard[i] ? [i] : []));
    if (unheard.length === 0) return;
    const held = tracked.views.reduce((sum, view, i) => (unheard.includes(i) ? sum : sum + view.allowance), 0);
    let spare = Math.max(0, tracked.window.limit - held);
    unheard.forEach((i, k) => {
      const view = tracked.views[i] as WindowView;
      const share = regionShare(tracked.window.limit, { index: i, count: this.regions.length });
      view.allowance = k === unheard.length - 1 ? spare : Math.min(spare, share);
      spare -= view.allowance;
    });
  }

  /** One call of lua/region-allowance.lua on region `i`; what it says is what the coordinator knows. Undefined: no answer. */
  private async call(tracked: Tracked, i: number, call: Parameters<typeof regionWindow>[3]): Promise<RegionWindow | undefined> {
    const region = this.regions[i] as RegionLink;
    const share = regionShare(tracked.window.limit, { index: i, count: this.regions.length });
    let reply: RegionWindow;
    try {
      reply = await regionWindow(region.client, tracked.window, share, call);
    } catch {
      return undefined;
    }
    const view = tracked.views[i] as WindowView;
    tracked.heard[i] = true;
    view.count = reply.count;
    view.allowance = reply.allowance;
    tracked.generations[i] = reply.generation;
    const lost = tracked.lost[i] as { units: number; generation: number };
    if (lost.units > 0 && reply.generation === lost.generation) view.allowance = Math.min(tracked.window.limit, reply.allowance + lost.units);
    else lost.units = 0;
    return reply;
  }
}
