import type { AlgorithmName } from '../contract';
import type { ResolvedRule } from '../rules';
import { fixedWindow } from './fixed-window';
import { gcra } from './gcra';
import { leakyBucket } from './leaky-bucket';
import type { AlgorithmModel } from './model';
import { slidingLog } from './sliding-log';
import { slidingWindow } from './sliding-window';
import { tokenBucket } from './token-bucket';

const factories: { [A in AlgorithmName]: (rule: ResolvedRule) => AlgorithmModel<unknown> } = {
  fixed_window: fixedWindow,
  sliding_log: slidingLog,
  sliding_window: slidingWindow,
  token_bucket: tokenBucket,
  leaky_bucket: (rule) => leakyBucket(rule, false),
  leaky_bucket_shaper: (rule) => leakyBucket(rule, true),
  gcra,
};

/**
 * The model for a rule, with its state type erased: the engines keep each rule's state under a key that
 * names the algorithm, so the state handed back to `open` always came from the same model.
 */
export function modelFor(rule: ResolvedRule): AlgorithmModel<unknown> {
  return factories[rule.algorithm](rule);
}

export type { AlgorithmModel, ApplyMode } from './model';
export { fixedWindow, gcra, leakyBucket, slidingLog, slidingWindow, tokenBucket };
