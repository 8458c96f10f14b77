import { auditPageSchema } from '@tollgate/domain';
import { apiRequest } from './api-client';
import { pageQuery } from './pagination';
import type { AuditPage } from './api-answers';

/** The filters of the audit log as the API takes them (`from`/`to` ISO 8601). */
export interface AuditQuery {
  actor?: string;
  entityType?: string;
  entityId?: string;
  from?: string;
  to?: string;
}

// The audit log: who changed what and when.
/** One page of the audit log, newest first; `cursor` is the previous page's `nextCursor`. */
export function listAudit(token: string, filter: AuditQuery, cursor: string | undefined, pageSize = 50): Promise<AuditPage> {
  const query = pageQuery(pageSize, cursor, filter);
  return apiRequest(`/v1/admin/audit?${query}`, auditPageSchema, { token });
}
