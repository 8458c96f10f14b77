export { InfraModule, PRISMA, REDIS, type InfraOptions } from './infra.module';
export { createRedisClient, duplicateClient, parseClusterNodes, redisClusterNodesEnv, type RedisClient, type RedisTarget } from './redis-client';
export { logDestination, logFormatEnv, type LogFormat } from './log-format';
export { EXIT_CODE, exitOnSignals, ShutdownSteps, shutdownEnv, within, type ShutdownLog } from './shutdown';
