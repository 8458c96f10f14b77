import type { RuleSet } from '@tollgate/domain';
import { describe, expect, it } from 'vitest';
import { onlineReplicas, replicaAckPolicies } from './replica-ack-coverage';

describe('onlineReplicas', () => {
  it('counts the replicas INFO replication lists as online, not those still syncing', () => {
    const info = [
      '# Replication',
      'role:master',
      'connected_slaves:3',
      'slave0:ip=10.0.0.2,port=6379,state=online,offset=120,lag=0',
      'slave1:ip=10.0.0.3,port=6379,state=wait_bgsave,offset=0,lag=0',
      'slave2:ip=10.0.0.4,port=6379,state=online,offset=118,lag=1',
      'master_repl_offset:120',
    ].join('\r\n');
    expect(onlineReplicas(info)).toBe(2);
    expect(onlineReplicas('# Replication\r\nrole:master\r\nconnected_slaves:0\r\n')).toBe(0);
  });
});

describe('replicaAckPolicies', () => {
  const policy = (name: string, extra: object) => ({ id: name, name, method: 'GET', pattern: `/${name}`, cost: 1, scope: 'tenant', mode: 'enforce', failureMode: 'open', limits: [], ...extra });
  it('counts the plans\' and the tenants\' own policies that wait for a replica, except those switched off', () => {
    const ruleSet = {
      policies: {
        plans: { starter: { 'GET /a': policy('a', { replicaAck: true }), 'GET /b': policy('b', {}) } },
        tenants: { acme: { 'GET /c': policy('c', { replicaAck: true, mode: 'shadow' }), 'GET /d': policy('d', { replicaAck: true, mode: 'off' }) } },
      },
    } as unknown as RuleSet;
    expect(replicaAckPolicies(ruleSet)).toBe(2);
  });
});
