import { algorithmContract } from './contract-suite/algorithms';
import { calendarContract } from './contract-suite/calendar';
import type { ContractTarget } from './contract-suite/context';
import { operationContract } from './contract-suite/operations';

export type { ContractTarget } from './contract-suite/context';

/**
 * The limiter contract (contract.ts) as tests: every engine runs all of them on a clock the tests control
 * (memory/memory-engine.spec.ts, redis/redis-engine.int-spec.ts).
 */
export function limiterContract(target: ContractTarget): void {
  algorithmContract(target);
  calendarContract(target);
  operationContract(target);
}
