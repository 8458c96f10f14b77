import { type CompiledPolicies, type CompiledPolicy, parseRoutePattern } from '@tollgate/domain';

/**
 * Request-time lookup of endpoint policies (docs/adr/0005-endpoint-policies.md). Built once per rule set version;
 * a lookup walks one segment trie per owner and method, never the list of policies.
 *
 * Which policy wins when several match, most specific first:
 * 1. the path, segment by segment from the left: a literal beats `*` (one segment), which beats a last `*` (the
 *    rest of the path) — so a longer pattern beats a shorter one that ends in `*`;
 * 2. then the method: `GET` beats `*`;
 * 3. then the owner: the tenant's own policy beats its plan's of the same route.
 */
export interface PolicyIndex {
  plans: ReadonlyMap<string, OwnerIndex>;
  tenants: ReadonlyMap<string, OwnerIndex>;
}

/** One owner's tries, by method (`*` included). */
type OwnerIndex = ReadonlyMap<string, TrieNode>;

interface TrieNode {
  literals: Map<string, TrieNode>;
  /** `*` as a segment that is not the last: exactly one segment. */
  one?: TrieNode;
  /** A last `*`: the rest of the path (one or more segments). */
  rest?: CompiledPolicy;
  /** A pattern that ends here. */
  end?: CompiledPolicy;
}

/** Literal, `*`, last `*`: how specific each matched segment was. */
const LITERAL = 2;
const ONE = 1;
const REST = 0;

interface Hit {
  policy: CompiledPolicy;
  /** One weight per matched pattern segment; compared left to right. */
  rank: number[];
  methodSpecific: boolean;
  tenantOwned: boolean;
}

export function buildPolicyIndex(policies: CompiledPolicies): PolicyIndex {
  const index = (tables: Record<string, Record<string, CompiledPolicy>>) =>
    new Map(Object.entries(tables).map(([owner, table]) => [owner, indexTable(Object.values(table))] as const));
  return { plans: index(policies.plans), tenants: index(policies.tenants) };
}

/**
 * The policy that applies to `method` `path` for a tenant on a plan, or null when none does. A policy in mode
 * `off` is returned like any other (it wins, and applies nothing: that is how a tenant switches off its plan's
 * policy). The path's query and fragment are ignored, and so are empty segments (`/v1//items/` is `/v1/items`).
 */
export function matchPolicy(index: PolicyIndex, owner: { tenant: string; plan: string }, method: string, path: string): CompiledPolicy | null {
  const segments = pathSegments(path);
  const upper = method.toUpperCase();
  let best: Hit | null = null;
  for (const [owners, name, tenantOwned] of [
    [index.tenants, owner.tenant, true],
    [index.plans, owner.plan, false],
  ] as const) {
    const tries = owners.get(name);
    if (!tries) continue;
    for (const [m, methodSpecific] of [
      [upper, true],
      ['*', false],
    ] as const) {
      const root = tries.get(m);
      const found = root && search(root, segments, 0, []);
      if (found) {
        const hit = { ...found, methodSpecific, tenantOwned };
        if (!best || beats(hit, best)) best = hit;
      }
    }
  }
  return best?.policy ?? null;
}

function indexTable(policies: CompiledPolicy[]): OwnerIndex {
  const tries = new Map<string, TrieNode>();
  for (const policy of policies) {
    let root = tries.get(policy.method);
    if (!root) tries.set(policy.method, (root = node()));
    insert(root, policy);
  }
  return tries;
}

function insert(root: TrieNode, policy: CompiledPolicy): void {
  let at = root;
  for (const segment of parseRoutePattern(policy.pattern)) {
    if (segment.kind === 'rest') {
      at.rest = policy;
      return;
    }
    if (segment.kind === 'one') at = at.one ??= node();
    else {
      const next = at.literals.get(segment.value) ?? node();
      at.literals.set(segment.value, next);
      at = next;
    }
  }
  at.end = policy;
}

function node(): TrieNode {
  return { literals: new Map() };
}

/** Depth first, most specific branch first: the first pattern found is the most specific of this trie. */
function search(at: TrieNode, segments: string[], i: number, rank: number[]): { policy: CompiledPolicy; rank: number[] } | null {
  if (i === segments.length) return at.end ? { policy: at.end, rank } : null;
  const literal = at.literals.get(segments[i]!);
  const viaLiteral = literal && search(literal, segments, i + 1, [...rank, LITERAL]);
  if (viaLiteral) return viaLiteral;
  const viaOne = at.one && search(at.one, segments, i + 1, [...rank, ONE]);
  if (viaOne) return viaOne;
  return at.rest ? { policy: at.rest, rank: [...rank, REST] } : null;
}

function beats(a: Hit, b: Hit): boolean {
  for (let i = 0; i < Math.min(a.rank.length, b.rank.length); i += 1) {
    if (a.rank[i] !== b.rank[i]) return a.rank[i]! > b.rank[i]!;
  }
  if (a.rank.length !== b.rank.length) return a.rank.length > b.rank.length;
  if (a.methodSpecific !== b.methodSpecific) return a.methodSpecific;
  return a.tenantOwned && !b.tenantOwned;
}

function pathSegments(path: string): string[] {
  const end = path.search(/[?#]/);
  return (end === -1 ? path : path.slice(0, end)).split('/').filter((s) => s !== '');
}
