import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TALLY } from '@tollgate/limiter';
import { describe, expect, it } from 'vitest';

// The node's flush writes into the hash the limit script counts into: its field literals are those of the one
// usage-count format (TALLY), as the limit script's are (libs/limiter script-spec.spec.ts).
const source = readFileSync(join(__dirname, 'lua', 'add-usage-counts.lua'), 'utf8');
const code = source.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--.*$/gm, '');

describe('add-usage-counts.lua and the usage-count format', () => {
  it('writes only fields that start as the format says', () => {
    // Literals that start a field (a letter or two, then `|` or `#`): its write's id, the route cap's markers, and a
    // route field's start with the name of the routes past the cap (the fields it adds come from the node, fields.ts).
    const literals = [...code.matchAll(/'([a-z]{1,2}[|#][^']*)'/g)].map((m) => m[1]);
    const { perRoute, routeKnown, routeCount } = TALLY.fields;
    expect(new Set(literals)).toEqual(new Set([TALLY.node.fields.written, routeKnown, routeCount, `${perRoute}${TALLY.otherRoute}`]));
  });

  it('counts a route past the cap under the format\'s name for it', () => {
    expect(code).toContain(`route ~= '${TALLY.otherRoute}'`);
  });
});
