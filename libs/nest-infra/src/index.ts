export { InfraModule, PRISMA, REDIS, type InfraOptions } from './infra.module';
export { waitUntilReady } from './wait-until-ready';
