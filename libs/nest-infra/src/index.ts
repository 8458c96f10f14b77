export { InfraModule, PRISMA, REDIS, type InfraOptions } from './infra.module';
export { createRedisClient, duplicateClient, parseClusterNodes, redisClusterNodesEnv, type RedisClient, type RedisTarget } from './redis-client';
