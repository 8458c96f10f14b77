// Seeds the demo into an empty database: an operator login, plan `starter` (10 checks per minute and 1000 per
// day, per subject, on every endpoint), tenant `acme` on it, and a DEMO-ONLY service key. Does nothing when
// the database already has plans. Run after the build: `npm run db:seed`.
import { hash } from '@node-rs/argon2';
import db from '@tollgate/db';
import { DEMO_OPERATOR, DEMO_SERVICE_KEY } from './demo.ts';

// @tollgate/db is a CommonJS build whose named exports Node's ESM loader cannot see (docs/adr/0001-monorepo-layout.md).
const { createPrismaClient, secretHash } = db;

const url = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/tollgate';
const prisma = createPrismaClient(url, { poolSize: 2 });

async function seed(): Promise<boolean> {
  if ((await prisma.plan.count()) > 0) return false;
  await prisma.$transaction(async (tx) => {
    const starter = await tx.plan.create({
      data: {
        slug: 'starter',
        name: 'Starter',
        limits: { create: [{ name: 'minute', windowS: 60, limit: 10 }, { name: 'daily', windowS: 86_400, limit: 1000, calendar: 'day' }] },
      },
    });
    const pro = await tx.plan.create({
      data: {
        slug: 'pro',
        name: 'Pro',
        limits: { create: [{ name: 'minute', windowS: 60, limit: 600 }, { name: 'daily', windowS: 86_400, limit: 100_000, calendar: 'day' }] },
      },
    });
    const acme = await tx.tenant.create({ data: { slug: 'acme', name: 'Acme Corp', planId: starter.id } });
    await tx.tenant.create({ data: { slug: 'globex', name: 'Globex', planId: pro.id, timeZone: 'Europe/Berlin' } });
    await tx.user.create({
      data: {
        email: DEMO_OPERATOR.email,
        name: 'Demo operator',
        role: 'operator',
        passwordHash: await hash(DEMO_OPERATOR.password),
      },
    });
    await tx.apiKey.create({
      data: {
        kind: 'service',
        name: 'Demo service key (demo only)',
        prefix: DEMO_SERVICE_KEY.slice(0, 12),
        hash: secretHash(DEMO_SERVICE_KEY),
        scopedTenants: { create: [{ tenantId: acme.id }] },
      },
    });
    await tx.auditLog.create({
      data: { actor: 'seed', action: 'demo.seeded', entityType: 'tenant', entityId: acme.id, after: { tenant: 'acme', plan: 'starter' } },
    });
  });
  return true;
}

seed()
  .then((created) => console.log(created ? 'seeded the demo (tenant acme on plan starter)' : 'database already has data; seed skipped'))
  .catch((err: unknown) => {
    console.error('seed failed:', err);
    process.exitCode = 1;
  })
  .finally(() => prisma.$disconnect());
