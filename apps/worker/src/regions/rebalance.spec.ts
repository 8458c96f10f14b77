import { describe, expect, it } from 'vitest';
import { grants, releases, splitByWeight, targets, type WindowView } from './rebalance';

const view = (count: number, allowance: number, demand: number, reachable = true): WindowView => ({ reachable, count, allowance, demand });
const sum = (views: readonly WindowView[]) => views.reduce((a, v) => a + v.allowance, 0);

/** Applies a round's moves the way the regions' Redis does (a release never below the count). */
function round(limit: number, views: WindowView[]): WindowView[] {
  for (const move of releases(limit, views)) {
    const v = views[move.region]!;
    if ('release' in move) v.allowance = Math.min(v.allowance, Math.max(v.count, move.release));
  }
  for (const move of grants(limit, views)) if ('grant' in move) views[move.region]!.allowance += move.grant;
  return views;
}

describe('rebalancing one window across regions', () => {
  it('gives the busy region what the quiet ones do not use, never more than the limit in all', () => {
    // 80/20: the shares (50/50) first, then the busy region's demand draws the rest.
    const views = [view(50, 50, 80), view(10, 50, 20)];
    expect(targets(100, views)).toEqual([82, 18]);
    expect(releases(100, views)).toEqual([{ region: 1, release: 18 }]);
    round(100, views);
    expect(views.map((v) => v.allowance)).toEqual([82, 18]);
    expect(sum(views)).toBe(100);
  });

  it('keeps what a region admitted, whatever its demand, and gives a quiet region a little', () => {
    const views = [view(0, 50, 0), view(30, 50, 0)];
    expect(targets(100, views)).toEqual([35, 65]);
    round(100, views);
    expect(views.map((v) => v.allowance)).toEqual([35, 65]);
  });

  it('reserves an unreachable region\'s allowance and grants only what is free', () => {
    const views = [view(40, 40, 100), view(0, 30, 0), view(5, 30, 0, false)];
    expect(targets(100, views)[2]).toBe(30);
    round(100, views);
    expect(views.map((v) => v.allowance)).toEqual([70, 0, 30]);
  });

  it('grants nothing a release did not free: a region that admitted more than asked to keep keeps it', () => {
    const views = [view(10, 50, 90), view(10, 50, 10)];
    const [release] = releases(100, views);
    expect(release).toEqual({ region: 1, release: 18 });
    // Meanwhile region 1 admitted 40: its Redis keeps 40, and only the 10 it released are free.
    views[1]!.count = 40;
    views[1]!.allowance = 40;
    expect(grants(100, views)).toEqual([{ region: 0, grant: 5 }, { region: 1, grant: 5 }]);
  });

  it('never adds up to more than the limit over random rounds, reachability and admissions', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 200; trial += 1) {
      const limit = 1 + Math.floor(random() * 1000);
      const n = 2 + Math.floor(random() * 3);
      const views = splitByWeight(limit, Array(n).fill(1)).map((share) => view(0, share, 0));
      for (let r = 0; r < 20; r += 1) {
        for (const v of views) {
          v.reachable = random() > 0.2;
          // Each region admits within its allowance on its own.
          const admitted = Math.min(v.allowance - v.count, Math.floor(random() * limit * 0.3));
          v.count += Math.max(0, admitted);
          v.demand = admitted + Math.floor(random() * 10);
        }
        round(limit, views);
        expect(sum(views)).toBeLessThanOrEqual(limit);
        for (const v of views) expect(v.allowance).toBeGreaterThanOrEqual(v.count);
      }
    }
  });

  it('splits by weight with the largest remainders, nothing for no weight', () => {
    expect(splitByWeight(10, [1, 1, 1])).toEqual([4, 3, 3]);
    expect(splitByWeight(7, [0.5, 80.5])).toEqual([0, 7]);
    expect(splitByWeight(5, [0, 0])).toEqual([0, 0]);
  });
});
