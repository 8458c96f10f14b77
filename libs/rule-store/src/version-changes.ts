import type { Prisma, PrismaClient } from '@tollgate/db';
import { parseSnapshot, ruleSetChangeSchema, ruleSetSchema, type RuleSetChange } from '@tollgate/domain';
import { describeRuleSetChanges, type RuleSetSide } from '@tollgate/rules';
import { z } from 'zod';

type Db = PrismaClient | Prisma.TransactionClient;
const storedChanges = z.array(ruleSetChangeSchema);

/** A stored version as the change lines read it: its compiled rules without number and time, and its snapshot. */
export function sideOfVersion(row: { compiled: unknown; source: unknown }): RuleSetSide {
  const { version: _v, compiledAt: _c, installation: _i, ...compiled } = ruleSetSchema.parse(row.compiled);
  return { compiled, source: parseSnapshot(row.source) };
}

/**
 * The changes of each version against the one before it, as written when it was committed. A version committed
 * before versions kept their lines (it kept JSON leaves, keys diffed by their place in a list) is described again
 * from its compiled rules and its predecessor's, so that old and new versions count alike.
 */
export async function changesOfVersions(db: Db, rows: readonly { version: number; diff: unknown }[]): Promise<Map<number, RuleSetChange[]>> {
  const changes = new Map<number, RuleSetChange[]>();
  const older: number[] = [];
  for (const row of rows) {
    const stored = storedChanges.safeParse(row.diff);
    if (stored.success) changes.set(row.version, stored.data);
    else older.push(row.version);
  }
  if (older.length === 0) return changes;
  const sides = await loadSides(db, [...older, ...older.map((v) => v - 1)]);
  for (const version of older) changes.set(version, describeRuleSetChanges(sides.get(version - 1) ?? null, sides.get(version)!));
  return changes;
}

/** What changes going from version `from` to version `to` (either order), or null when either does not exist. */
export async function changesBetween(db: Db, from: number, to: number): Promise<RuleSetChange[] | null> {
  const sides = await loadSides(db, [from, to]);
  const [before, after] = [sides.get(from), sides.get(to)];
  return before && after ? describeRuleSetChanges(before, after) : null;
}

/** A version's compiled rule set as an answer shows it: its keys by id and prefix, never by hash. */
export function withoutKeyHashes(compiled: unknown): unknown {
  if (!isRecord(compiled)) return compiled;
  const strip = (keys: unknown) => (Array.isArray(keys) ? keys.map((key) => (isRecord(key) ? omitHash(key) : key)) : keys);
  const kept = (name: string) => (name in compiled ? { [name]: strip(compiled[name]) } : {});
  return { ...compiled, serviceKeys: strip(compiled['serviceKeys']), ...kept('tenantKeys'), ...kept('revokedTenantKeys') };
}

async function loadSides(db: Db, versions: number[]): Promise<Map<number, RuleSetSide>> {
  const rows = await db.ruleSetVersion.findMany({ where: { version: { in: [...new Set(versions)] } }, select: { version: true, compiled: true, source: true } });
  return new Map(rows.map((row) => [row.version, sideOfVersion(row)]));
}

function omitHash({ hash: _hash, ...key }: Record<string, unknown>): Record<string, unknown> {
  return key;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
