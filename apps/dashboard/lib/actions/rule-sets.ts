'use server';

import { refresh } from 'next/cache';
import { ApiError, restoreRuleSet } from '../api';
import type { RestoreRuleSetResponse } from '../api-answers';
import { endExpiredSession } from '../mutation';
import { describeFailure, requireToken } from '../session';

export type RestoreState =
  | { status: 'idle' }
  | { status: 'restored'; version: number; ruleVersion: number; message: string; undid: string[] }
  | { status: 'failed'; version: number; message: string; code?: string };

const VERSION = /^[1-9]\d{0,9}$/;

/** Restores the plans, limits and plan assignments of one version; the API publishes them as a new version and says what it undid. */
export async function restoreVersion(_previous: RestoreState, formData: FormData): Promise<RestoreState> {
  const token = await requireToken();
  const submitted = String(formData.get('version') ?? '');
  if (!VERSION.test(submitted)) return { status: 'failed', version: 0, message: 'That is not a rule set version.' };
  const version = Number(submitted);

  let restored: RestoreRuleSetResponse;
  try {
    restored = await restoreRuleSet(token, version);
  } catch (error) {
    await endExpiredSession(error);
    const code = error instanceof ApiError ? error.code : undefined;
    return { status: 'failed', version, message: restoreFailureMessage(error, version), ...(code ? { code } : {}) };
  }

  refresh();
  return {
    status: 'restored',
    version: restored.restoredFrom,
    ruleVersion: restored.ruleVersion,
    message: restored.published
      ? `Restored v${restored.restoredFrom} as v${restored.ruleVersion} — now live. It undid:`
      : `The rules in force were already those of v${restored.restoredFrom}: nothing was undone, v${restored.ruleVersion} stays live.`,
    undid: restored.undoes.map((change) => change.text),
  };
}

/** 404 (gone), 409 (cannot be restored, the API says why) and 400 (would be an invalid rule set) alike. */
function restoreFailureMessage(error: unknown, version: number): string {
  if (error instanceof ApiError && error.kind === 'http' && error.status !== 403) {
    return `Could not restore v${version}: ${error.message}`;
  }
  return describeFailure(error).message;
}
