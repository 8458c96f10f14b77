export { InfraModule, PRISMA, REDIS, type InfraOptions } from './infra.module';
export { createRedisClient, duplicateClient, parseClusterNodes, parseHostPorts, type HostPort, type RedisClient, type RedisTarget, type SentinelTarget } from './redis-client';
export { redisClusterNodesEnv, redisSentinelEnv, redisSentinelIssues, redisTargetOf } from './redis-env';
export { logDestination, logFormatEnv, type LogFormat } from './log-format';
export { EXIT_CODE, exitOnSignals, ShutdownSteps, shutdownEnv, within, type ShutdownLog } from './shutdown';
