import { describe, expect, it } from 'vitest';
import { parseChartWidth } from './chart-width';

describe('the remembered chart width', () => {
  it('is a whole number of pixels between 200 and 4000', () => {
    expect(parseChartWidth('1262')).toBe(1262);
    expect(parseChartWidth('200')).toBe(200);
    expect(parseChartWidth('4000')).toBe(4000);
  });

  it('is ignored when absent, out of range or not a plain number', () => {
    for (const value of [undefined, '', '199', '4001', '12.5', '1e3', ' 900', '900px', '-900', '0900x', '99999']) {
      expect(parseChartWidth(value), String(value)).toBeUndefined();
    }
  });
});
