export { InfraModule, PRISMA, REDIS, type InfraOptions } from './infra.module';
