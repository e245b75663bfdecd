import type { RollStats } from '../client/types';
import type { Stats } from './read';

/** The statistics on the wire (snake_case, client/types.ts RollStats): one presenter for every caller. */
export function presentStats(stats: Stats): RollStats {
  return {
    rolls: stats.rolls,
    dice: stats.dice.map((d) => ({
      type: d.type,
      themes: d.themes,
      faces: d.faces,
      count: d.count,
      counts: d.counts.map((c) => ({ face: c.face, value: c.value, count: c.count })),
      mean: d.mean,
      expected_mean: d.expectedMean,
      chi_square: d.chiSquare,
      degrees_of_freedom: d.degreesOfFreedom,
      p_value: d.pValue,
      user_values: d.userValues,
    })),
  };
}
